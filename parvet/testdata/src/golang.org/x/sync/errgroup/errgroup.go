// Package errgroup is a stub of golang.org/x/sync/errgroup for the analyzers'
// tests: Go runs its function at once.
package errgroup

import "context"

// A Group is a collection of goroutines working on subtasks.
type Group struct {
	err    error
	cancel func()
}

func WithContext(ctx context.Context) (*Group, context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	return &Group{cancel: cancel}, ctx
}
func (g *Group) Go(f func() error) {
	if err := f(); err != nil && g.err == nil {
		g.err = err
		if g.cancel != nil {
			g.cancel()
		}
	}
}
func (g *Group) TryGo(f func() error) bool { g.Go(f); return true }
func (g *Group) SetLimit(n int)            {}
func (g *Group) Wait() error {
	if g.cancel != nil {
		g.cancel()
	}
	return g.err
}
