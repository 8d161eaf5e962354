// Package runtime is a sequential stub of gopar's runtime package: the
// worker pool's fork-join API, whose types are aliases of internal/sched's,
// as gopar's are.
package runtime

import "github.com/gopar-dev/gopar/internal/sched"

// Pool stands for gopar's worker pool.
type Pool = sched.Pool

// Worker stands for a participant of a pool.
type Worker = sched.Worker

// Scope stands for a scope of spawned tasks.
type Scope = sched.Scope

// Panic is a recovered panic.
type Panic = sched.Panic

func Default() *Pool                 { return sched.Default() }
func New(workers int) (*Pool, error) { return sched.New(workers) }
func JoinFunc[A, R any](w *Worker, f func(*Worker, A) R, a, b A) (ra, rb R) {
	return sched.JoinFunc(w, f, a, b)
}
