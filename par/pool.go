package par

import "github.com/gopar-dev/gopar/runtime"

// Pool is a pool of workers that runs parallel operations: one per core by
// default (DefaultPool). Give an operation a pool of its own with WithPool,
// for example to keep one part of a program from taking every core.
//
// A pool's size is not a cap on the callbacks in flight, since callers
// help (see runtime.Pool.Workers); Blocking(limit) is one.
type Pool = runtime.Pool

// Panic is what a panic in a callback comes back as: it holds the original
// value (Value) and the stack where it happened (Stack), and unwraps to the
// value when that is an error.
type Panic = runtime.Panic

// ErrClosed is the panic value of an operation on a pool after its Close.
var ErrClosed = runtime.ErrClosed

// MaxWorkers is the largest pool NewPool makes (see runtime.MaxWorkers).
const MaxWorkers = runtime.MaxWorkers

// NewPool returns a pool of the given number of workers (1 to MaxWorkers), which
// the caller should Close when done with it.
func NewPool(workers int) (*Pool, error) { return runtime.New(workers) }

// DefaultPool returns the pool operations run on unless WithPool says
// otherwise: GOMAXPROCS workers, or as many as the GOPAR_WORKERS
// environment variable says. Its workers start on first use and retire
// once idle, so an idle program has no goroutine of gopar's, and a
// goroutine-leak checker needs no ignore rule (see runtime.Default, which
// also says how it behaves inside a testing/synctest bubble).
//
// Sized by GOMAXPROCS, it follows GOMAXPROCS up and down, as go test -cpu
// 1,2 and the Go runtime's updates to a container's CPU limit change it:
// operations that start after the change (once the pool's workers have
// looked, as they do when they run out of work) run on a pool of the new
// size, while those in flight end on the pool they started on, so nothing
// is lost or run twice. DefaultPool may therefore return another *Pool
// than before; one held from earlier keeps its size and keeps working.
// GOPAR_WORKERS pins the size, and a pool from NewPool keeps its own.
func DefaultPool() *Pool { return runtime.Default() }
