// Package semaphore is a stub of golang.org/x/sync/semaphore for the
// analyzers' tests.
package semaphore

import "context"

// Weighted is a weighted semaphore.
type Weighted struct{ n int64 }

func NewWeighted(n int64) *Weighted                            { return &Weighted{n} }
func (s *Weighted) Acquire(ctx context.Context, n int64) error { return ctx.Err() }
func (s *Weighted) TryAcquire(n int64) bool                    { return true }
func (s *Weighted) Release(n int64)                            {}
