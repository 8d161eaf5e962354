package main

import (
	"errors"
	"fmt"
	"sync"
)

// registry holds what the loops below read through methods that only read.
type registry struct {
	mu      sync.RWMutex
	offline map[int]bool
}

// isOffline only reads, under a read lock.
func (r *registry) isOffline(i int) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.offline[i]
}

var errOffline = errors.New("offline")

type label struct{ name string }

func (l label) String() string { return "#" + l.name }

// sizes asks each item's size, skipping the items the registry has
// offline (their error kept at their index), with a method that only
// reads, a slot of the item's own written before the start, and the
// item's option read from a slice at its index.
func sizes(r *registry, names []string, opts []int) ([]int, []error, []int) {
	out := make([]int, len(names))
	errs := make([]error, len(names))
	lens := make([]int, len(names))
	var wg sync.WaitGroup
	for i, name := range names { // want `a goroutine per item with a sync.WaitGroup; gopar replaces it`
		if r.isOffline(i) {
			errs[i] = errOffline
			continue
		}
		lens[i] = len(name)
		wg.Add(1)
		go func(i int, name string, opt int) {
			defer wg.Done()
			out[i] = len(name)*10 + opt
		}(i, name, opts[i])
	}
	wg.Wait()
	return out, errs, lens
}

// tagged counts the letters of the labels among vals, those wanted by
// their String form: an assertion and a nested skip move into the callback.
func tagged(vals []any, want map[string]bool) []int {
	out := make([]int, len(vals))
	var wg sync.WaitGroup
	for i, v := range vals { // want `a goroutine per item with a sync.WaitGroup; gopar replaces it`
		l, ok := v.(label)
		if !ok {
			continue
		}
		tag := l.String()
		if len(want) > 0 {
			if _, ok := want[tag]; !ok {
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = len(tag)
		}()
	}
	wg.Wait()
	return out
}

func runMoved() {
	r := &registry{offline: map[int]bool{2: true, 5: true}}
	names := []string{"a", "bb", "ccc", "dddd", "eeeee", "ffffff", "g"}
	opts := []int{1, 2, 3, 4, 5, 6, 7}
	out, errs, lens := sizes(r, names, opts)
	fmt.Println("sizes:", out, errs, lens)
	vals := []any{label{"x"}, 3, label{"yy"}, "z", label{"www"}}
	fmt.Println("tagged:", tagged(vals, map[string]bool{"#x": true, "#www": true}))
}
