package par_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/gopar-dev/gopar/par"
)

// listPages is a paged lister of the shape of many SDKs': it calls page
// with each page of names, stops at page's first error and returns it,
// and fails itself at page failAt (-1: never).
func listPages(ctx context.Context, failAt int, page func(names []string) error) error {
	for p := range 5 {
		if p == failAt {
			return fmt.Errorf("listing page %d: %w", p, errors.New("connection reset"))
		}
		names := []string{fmt.Sprintf("p%d-a", p), fmt.Sprintf("p%d-b", p), fmt.Sprintf("p%d-c", p)}
		if err := page(names); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// A paged lister as a source: each name of each page is an item, uploaded
// at most 4 at once. The lister's error ends the operation with it; an
// upload's error stops the lister.
func ExampleFromWalk() {
	ctx := context.Background()
	objects := func(failAt int) par.Iter[string] {
		return par.FromWalk(func(yield func(string) error) error {
			return listPages(ctx, failAt, func(names []string) error {
				for _, name := range names {
					if err := yield(name); err != nil {
						return err // the operation has stopped
					}
				}
				return nil
			})
		})
	}
	var uploaded atomic.Int64
	upload := func(name string) error {
		uploaded.Add(1)
		return nil
	}
	failing := func(name string) error {
		if name == "p1-b" {
			return errors.New("upload p1-b: quota exceeded")
		}
		return nil
	}
	fmt.Println(objects(-1).Blocking(4).TryForEach(upload), uploaded.Load()) // every page
	fmt.Println(objects(3).Blocking(4).TryForEach(upload))                   // the lister fails
	fmt.Println(objects(-1).Blocking(4).TryForEach(failing))                 // an upload fails
	// Output:
	// <nil> 15
	// listing page 3: connection reset
	// upload p1-b: quota exceeded
}

// A sequence of values and errors, as a pager's pages give them: the first
// error ends the items with it.
func ExampleFromSeqErr() {
	pages := func(yield func([]int, error) bool) {
		for p := range 4 {
			if p == 2 {
				yield(nil, errors.New("page 2: timeout"))
				return
			}
			if !yield([]int{10 * p, 10*p + 1}, nil) {
				return
			}
		}
	}
	sum, err := par.TryFold(par.FromSeqErr(pages),
		func() int { return 0 },
		func(acc int, page []int) (int, error) { return acc + len(page), nil },
		func(a, b int) int { return a + b })
	fmt.Println(sum, err)
	// Output: 0 page 2: timeout
}

// An operation with no error of its own over a source that can fail:
// check Err after it, as with bufio.Scanner.
func ExampleIter_Err() {
	words := par.FromWalk(func(yield func(string) error) error {
		for _, w := range strings.Fields("to be or not to be") {
			if err := yield(w); err != nil {
				return err
			}
		}
		return errors.New("the rest of the text is unreadable")
	})
	counts := par.Counts(words)
	if err := words.Err(); err != nil {
		fmt.Println("error:", err) // counts misses words: discard it
		return
	}
	fmt.Println(counts)
	// Output: error: the rest of the text is unreadable
}

// The items themselves, counted: a word count.
func ExampleCounts() {
	lines := []string{"the cat", "the dog", "a cat"}
	counts := par.Counts(par.FlatMap(par.Slice(lines), strings.Fields))
	for _, w := range slices.Sorted(maps.Keys(counts)) {
		fmt.Println(w, counts[w])
	}
	// Output:
	// a 1
	// cat 2
	// dog 1
	// the 2
}

// Results with their errors, each as its call returns: the range loop
// handles a failure as it comes, with no struct to carry the pair.
func ExampleResults() {
	fetch := func(id int) (string, error) {
		if id%3 == 0 {
			return "", fmt.Errorf("fetch %d: not found", id)
		}
		return fmt.Sprint("page ", id), nil
	}
	var pages, failed []string
	for page, err := range par.Results(par.Range(1, 8).Blocking(4).Unordered(), fetch) {
		if err != nil {
			failed = append(failed, err.Error())
			continue
		}
		pages = append(pages, page)
	}
	slices.Sort(pages) // they came in completion order
	slices.Sort(failed)
	fmt.Println(pages)
	fmt.Println(failed)
	// Output:
	// [page 1 page 2 page 4 page 5 page 7]
	// [fetch 3: not found fetch 6: not found]
}

// A lister whose next page waits on a request: the walk makes it with the
// context FromWalkContext hands it, which the operation cancels as it
// stops, so an upload's error ends the operation without waiting for the
// page in flight.
func ExampleFromWalkContext() {
	objects := par.FromWalkContext(func(ctx context.Context, yield func(string) error) error {
		for p := 0; ; p++ {
			if p > 0 {
				<-ctx.Done() // the request for page p, which takes a while
				return context.Cause(ctx)
			}
			for _, name := range []string{"a", "b", "c", "d"} {
				if err := yield(name); err != nil {
					return err
				}
			}
		}
	})
	err := objects.Blocking(4).TryForEach(func(name string) error {
		if name == "d" {
			return errors.New("upload d: quota exceeded")
		}
		return nil
	})
	fmt.Println(err)
	// Output:
	// upload d: quota exceeded
}
