package par

import "github.com/gopar-dev/gopar/runtime"

// Pool is a set of worker goroutines on which terminal operations run; see
// WithPool. Most programs use the default pool and never need one of their
// own. A pool's size is not a cap on the callbacks in flight: see
// runtime.Pool.Workers.
type Pool = runtime.Pool

// Panic is what a terminal operation re-panics with when a callback
// panicked: it holds the original value (Value) and the stack where it was
// raised, and unwraps to the value when that is an error.
type Panic = runtime.Panic

// ErrClosed is the panic value of an operation run on a pool after its
// Close: the operation panics before it runs any item.
var ErrClosed = runtime.ErrClosed

// NewPool starts a pool of the given number of worker goroutines (at least
// one), for use with WithPool. Close it when done with it.
func NewPool(workers int) (*Pool, error) { return runtime.New(workers) }

// DefaultPool returns the shared pool that terminal operations run on
// unless WithPool says otherwise. It has as many workers as the
// GOPAR_WORKERS environment variable says, or GOMAXPROCS.
func DefaultPool() *Pool { return runtime.Default() }
