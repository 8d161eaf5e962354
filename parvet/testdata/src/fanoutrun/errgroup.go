package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// parseAll doubles every field, at most three at once, and returns the first
// error.
func parseAll(ctx context.Context, fields []string) ([]int, error) {
	out := make([]int, len(fields))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(3)
	for i, f := range fields { // want `fan-out: an errgroup loop; gopar replaces it with par.Slice\(fields\).WithContext\(ctx\).Blocking\(3\).TryForEachContext`
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			n, err := strconv.Atoi(f)
			if err != nil {
				return err
			}
			out[i] = 2 * n
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

func validate(s string) error {
	if s == "" {
		return errors.New("empty word")
	}
	return nil
}

// lengths measures every word, with no limit.
func lengths(words []string) ([]int, error) {
	out := make([]int, len(words))
	var g errgroup.Group
	for i, w := range words { // want `par.Slice\(words\).ForEach \(every item runs, as in the group, and the first error is kept`
		g.Go(func() error {
			if err := validate(w); err != nil {
				return err
			}
			out[i] = len(w)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// checkAll validates every word, at most two at once.
func checkAll(words []string) error {
	var g errgroup.Group
	g.SetLimit(2)
	for _, w := range words { // want `par.Slice\(words\).Blocking\(2\).ForEach \(at most 2 at once, every item runs, as in the group, and the first error is kept`
		g.Go(func() error { return validate(w) })
	}
	return g.Wait()
}

// runErrgroup fans out with errgroup loops: one with SetLimit and
// WithContext that stops at the first error, one with results by index and
// no limit. Its output does not depend on timing: at most one item fails.
func runErrgroup() {
	ctx := context.Background()
	fields := make([]string, 40)
	for i := range fields {
		fields[i] = strconv.Itoa(i * 7)
	}
	out, err := parseAll(ctx, fields)
	fmt.Println("parse:", out, err)
	fields[17] = "x17"
	out, err = parseAll(ctx, fields)
	fmt.Println("parse with a bad field:", out, err)

	words := strings.Fields("alpha beta gamma delta epsilon")
	ls, err := lengths(words)
	fmt.Println("lengths:", ls, err)
	ls, err = lengths(append(words, ""))
	fmt.Println("lengths with an empty word:", ls, err)
	fmt.Println("check:", checkAll(words), checkAll([]string{"a", "", "c"}))
	fmt.Println("sum:", sumAll(ctx, fields[:17]))
	fmt.Println("sum with a bad field:", sumAll(ctx, fields))
}

// sumAll adds the fields up with three workers that share their group
// with the producer, and says what it got: the sum, or the first error.
func sumAll(ctx context.Context, fields []string) string {
	g, ctx := errgroup.WithContext(ctx)
	jobs := make(chan string)
	g.Go(func() error {
		defer close(jobs)
		for _, f := range fields {
			select {
			case <-ctx.Done():
				return nil
			case jobs <- f:
			}
		}
		return nil
	})
	var sum atomic.Int64
	for range 3 { // want `fan-out: a pool of 3 errgroup workers draining a channel; gopar replaces it with par.FromChan\(jobs\).Blocking\(3\).TryForEach`
		g.Go(func() error {
			for f := range jobs {
				n, err := strconv.Atoi(f)
				if err != nil {
					return err
				}
				sum.Add(int64(n))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err.Error()
	}
	return strconv.FormatInt(sum.Load(), 10)
}
