// Package errgroup is a stand-in for minio's errgroup
// (github.com/minio/pkg/v3/sync/errgroup) in the fanout analyzer's tests:
// a group that keeps one error per index.
package errgroup

import "sync"

// Group runs functions on goroutines of their own and keeps the error of
// each at its index.
type Group struct {
	wg    sync.WaitGroup
	errs  []error
	limit chan struct{}
}

// WithNErrs returns a group that keeps n errors.
func WithNErrs(n int) *Group { return &Group{errs: make([]error, n)} }

// WithConcurrency limits the group to n functions at once; n <= 0 sets no
// limit.
func (g *Group) WithConcurrency(n int) *Group {
	if n > 0 {
		g.limit = make(chan struct{}, n)
	}
	return g
}

// Go runs f on a goroutine of its own and keeps its error at index, where
// the group has a slot for it.
func (g *Group) Go(f func() error, index int) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if g.limit != nil {
			g.limit <- struct{}{}
			defer func() { <-g.limit }()
		}
		if err := f(); err != nil && index < len(g.errs) {
			g.errs[index] = err
		}
	}()
}

// Wait waits for every function and returns their errors by index.
func (g *Group) Wait() []error {
	g.wg.Wait()
	return g.errs
}
