package par_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

// Every item runs, and every failure comes back with its index, in index
// order: the fan-out that collects all the errors instead of stopping at
// the first.
func ExampleIter_ForEachErr() {
	files := []string{"a.txt", "missing.txt", "b.txt", "locked.txt"}
	check := func(name string) error {
		switch name {
		case "missing.txt":
			return fs.ErrNotExist
		case "locked.txt":
			return fs.ErrPermission
		}
		return nil
	}
	err := par.Slice(files).Blocking(4).ForEachErr(check)
	fmt.Println(err)
	fmt.Println(errors.Is(err, fs.ErrPermission))
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ie *par.ItemError
		if errors.As(e, &ie) {
			fmt.Printf("%s: %v\n", files[ie.Index], ie.Err)
		}
	}
	// Output:
	// gopar: item 1: file does not exist
	// gopar: item 3: permission denied
	// true
	// missing.txt: file does not exist
	// locked.txt: permission denied
}

// Every result in source order, and every failure with its index; a failed
// item's slot holds what f returned with its error.
func ExampleMapErr() {
	nums, err := par.MapErr(par.Slice([]string{"1", "two", "3", "four"}), strconv.Atoi)
	fmt.Println(nums)
	fmt.Println(err)
	// Output:
	// [1 0 3 0]
	// gopar: item 1: strconv.Atoi: parsing "two": invalid syntax
	// gopar: item 3: strconv.Atoi: parsing "four": invalid syntax
}

// A failure of ForEachErr or MapErr: the item's index and its error,
// which errors.Is and errors.As see through.
func ExampleItemError() {
	_, err := par.MapErr(par.Range(0, 100), func(i int) (int, error) {
		if i == 42 {
			return 0, fs.ErrClosed
		}
		return i * i, nil
	})
	var ie *par.ItemError
	fmt.Println(errors.As(err, &ie), ie.Index, errors.Is(err, fs.ErrClosed))
	// Output: true 42 true
}

// A buffer per goroutine, and the first error: TryMap with MapInit's
// per-goroutine value.
// A deadline that ends a fan-out early loses no finished work: MapErr
// returns every result that finished, in its slot, and an *Unfinished that
// names the items left, to retry or report. Here the context ends during
// the fourth call (one call at a time, so that the output is the same on
// every run).
func ExampleUnfinished() {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	files := []string{"a", "b", "c", "d", "e", "f"}
	digests, err := par.MapErr(par.Slice(files).Blocking(1).WithContext(ctx), func(name string) (string, error) {
		if name == "d" {
			cancel(context.DeadlineExceeded)
		}
		return "sum(" + name + ")", nil
	})
	fmt.Printf("%q\n", digests)
	var u *par.Unfinished
	if errors.As(err, &u) {
		for i := range u.Left() {
			fmt.Println("not hashed:", files[i])
		}
	}
	fmt.Println(err)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output:
	// ["sum(a)" "sum(b)" "sum(c)" "sum(d)" "" ""]
	// not hashed: e
	// not hashed: f
	// gopar: 2 items did not run: context deadline exceeded
	// true
}

func ExampleTryMapInit() {
	records := []string{"ann,3", "bob,5", "cy,x", "dee,7"}
	render := func(buf *bytes.Buffer, rec string) (string, error) {
		name, count, _ := strings.Cut(rec, ",")
		n, err := strconv.Atoi(count)
		if err != nil {
			return "", fmt.Errorf("record %q: %w", rec, err)
		}
		buf.Reset()
		fmt.Fprintf(buf, "%s=%d", strings.ToUpper(name), n)
		return buf.String(), nil
	}
	out, err := par.TryMapInit(par.Slice(records[:2]), func() *bytes.Buffer { return new(bytes.Buffer) }, render)
	fmt.Println(out, err)
	out, err = par.TryMapInit(par.Slice(records), func() *bytes.Buffer { return new(bytes.Buffer) }, render)
	fmt.Println(out == nil, err)
	// Output:
	// [ANN=3 BOB=5] <nil>
	// true record "cy,x": strconv.Atoi: parsing "x": invalid syntax
}

// A client per goroutine (here a counter of the calls it served), made once
// per goroutine rather than per item, and the first error.
func ExampleTryForEachInit() {
	type client struct{ calls int }
	var clients []*client // init runs on one goroutine at a time here: Blocking(1)
	err := par.TryForEachInit(par.Range(0, 10).Blocking(1),
		func() *client { c := new(client); clients = append(clients, c); return c },
		func(c *client, i int) error {
			c.calls++
			if i == 6 {
				return fmt.Errorf("item %d: refused", i)
			}
			return nil
		})
	fmt.Println(err, len(clients), clients[0].calls)
	// Output: item 6: refused 1 7
}
