package runtime

import "github.com/gopar-dev/gopar/internal/sched"

// Pool is a set of worker goroutines that run tasks from per-worker deques.
// Create one with New, or use Default. All methods are safe for concurrent
// use; a method called on a closed pool panics with ErrClosed.
//
// Its methods:
//
//   - Do(f func(*Worker)) runs f on the calling goroutine as a participant
//     of the pool, and returns when f returns; f forks through the *Worker
//     it receives (Worker.Join, Worker.Scope, JoinFunc).
//   - Join(a, b func(*Worker)) runs a and b, possibly in parallel: Do
//     followed by Worker.Join.
//   - Scope(body func(Scope)) is Do followed by Worker.Scope.
//   - Go(fn func(*Worker)) runs fn on one of the pool's workers,
//     asynchronously; nobody waits for it, and a panic escaping it crashes
//     the program, as in a go statement.
//   - Workers() int returns the number of worker goroutines, which is not a
//     cap on the callbacks running at once (docs/guide.md, "Size is not a
//     cap").
//   - Stats() Stats returns the pool's counters.
//   - Close() error stops the workers once they have run the work already
//     queued, and waits for them to exit; closing the default pool is an
//     error, and Close from inside the pool panics.
//   - Closed() bool reports whether Close has been called.
type Pool = sched.Pool

// Worker is the record of one participant of a pool: a worker goroutine, or
// a goroutine that entered the pool with Pool.Do. It is handed to every task
// the pool runs; tasks use it to fork more work. A Worker must only be used
// by the goroutine it was handed to, for as long as the task runs.
//
// A nil *Worker is valid: it stands for "no pool", and Join on it runs its
// functions one after the other on the calling goroutine.
//
// Its methods:
//
//   - Join(a, b func(*Worker)) runs a and b, possibly in parallel, and
//     returns when both are done: b is offered for stealing while w runs a.
//   - Scope(body func(Scope)) runs body, in which tasks may be spawned, and
//     returns when body and every task spawned in the scope have returned.
//   - Pool() *Pool returns the pool w belongs to (nil for a nil Worker).
//   - Index() int returns w's position in its pool: 0 to Workers()-1 for
//     the pool's own workers, above that for goroutines that entered with
//     Pool.Do, -1 for a nil Worker.
type Worker = sched.Worker

// Scope is handed to the body of Worker.Scope and to every task spawned in
// it. Tasks spawned through it may spawn more; the scope ends when all of
// them are done.
//
// Its methods:
//
//   - Spawn(fn func(Scope)) starts fn as part of the scope: it runs on some
//     worker, possibly this one, before the scope ends. It may be called on
//     any Scope of the scope, from any goroutine, while the scope is open.
//   - Worker() *Worker returns the worker the Scope value is bound to.
type Scope = sched.Scope

// Stats are counters summed over a pool's workers and guest slots since the
// pool started (Pool.Stats). Each field is read atomically, but the fields
// are not read at one instant: treat a snapshot taken while the pool is busy
// as approximate.
type Stats = sched.Stats

// Panic is what gopar re-raises in the waiting goroutine when a task
// panicked, possibly on another worker. Value is the value the task passed
// to panic; Stack is the stack of the goroutine where the panic happened, so
// the report points at the task and not at the goroutine that re-raised it.
//
// Recover it like any other panic value:
//
//	defer func() {
//		if r := recover(); r != nil {
//			if p, ok := r.(*runtime.Panic); ok {
//				log.Printf("task failed: %v\n%s", p.Value, p.Stack)
//			}
//		}
//	}()
//
// Its methods:
//
//   - Error() string reports the original value and the stack where it was
//     raised.
//   - Unwrap() error returns the original value if it is an error, so that
//     errors.Is and errors.As see through the wrapper.
//   - IsGoexit() bool reports whether p records a task that called
//     runtime.Goexit rather than one that panicked.
type Panic = sched.Panic

// MaxWorkers is the largest pool New makes. A pool's size is the
// parallelism of CPU work, about the number of cores; an idle worker looks
// for work in every member's deque, so a pool of tens of thousands of
// workers spends its time searching. To have many calls that block in
// flight, use the Blocking mode of the par iterators instead.
const MaxWorkers = sched.MaxWorkers

// WorkersEnv is the environment variable that sizes the default pool.
const WorkersEnv = sched.WorkersEnv

// ErrClosed is the panic value of Pool methods called after Close.
var ErrClosed = sched.ErrClosed

// New makes a pool of the given number of workers. A count below one or
// above MaxWorkers is an error.
//
// A worker's goroutine starts when work is published for it, and ends once
// the worker has been idle for a while (its goroutine retires; the next
// work starts a new one): a pool that is not used has no goroutine.
//
// Called inside a testing/synctest bubble, New makes a pool that runs every
// operation on the calling goroutine, inside the bubble or outside it, and
// has no goroutine, channel or timer: the pool may outlive the bubble, and
// a goroutine outside may not use the bubble's channels. Make a pool that
// is to do parallel work outside any bubble.
func New(workers int) (*Pool, error) { return sched.New(workers) }

// Default returns the shared pool, starting it on first use. It has as many
// workers as the GOPAR_WORKERS environment variable says, or GOMAXPROCS if
// that variable is unset (at most MaxWorkers). An invalid value (not an
// integer from 1 to MaxWorkers) is reported once on standard error and the
// GOMAXPROCS default is used.
//
// Sized by GOMAXPROCS, the default pool follows it, up and down: once
// GOMAXPROCS has changed (runtime.GOMAXPROCS, go test -cpu, or the Go
// runtime's own update to a container's CPU limit) and one of the pool's
// workers has next run out of work, Default returns a new pool of the new
// size. An operation runs to its end on the pool it started on, so nothing
// is lost or run twice; the earlier pool is not closed, stays usable by
// whoever holds it, and its workers retire once idle, as every pool's do.
// GOPAR_WORKERS pins the size, and a pool made by New keeps the size it was
// given. Each pool has its own Stats.
//
// The default pool cannot be closed. Its worker goroutines run while there
// is work and retire once idle for a tenth of a second, so that a
// goroutine-leak checker (go.uber.org/goleak, which retries for longer than
// that) finds none of them after the last operation has returned, with no
// ignore rule. A spare goroutine (docs/design.md, "Where the engine
// waits") runs only while a worker waits, and exits at its next job
// boundary after.
//
// Inside a testing/synctest bubble, until a goroutine outside any bubble
// has made the default pool, Default returns a pool of the same size that
// runs every operation on the calling goroutine: the default pool is never
// made inside a bubble, which it outlives (nor replaced there: a bubble goes
// on using the one made outside).
func Default() *Pool { return sched.Default() }

// JoinFunc is the fast form of Join for recursive divide and conquer: it
// returns f(w, a) and f(w, b), computed possibly in parallel.
//
//	func fib(w *runtime.Worker, n int) int {
//		if n < 2 {
//			return n
//		}
//		x, y := runtime.JoinFunc(w, fib, n-1, n-2)
//		return x + y
//	}
//
// Where Join offers b for stealing at once (a closure that escapes to the
// heap, and two atomic operations), JoinFunc keeps (f, b) private to w and
// calls f(w, a); the pending call becomes stealable only when another
// participant is looking for work, and then it is the largest piece of work
// w has. When nobody is idle, a JoinFunc costs a few nanoseconds over the
// two plain calls and allocates nothing. That still outweighs pieces of a
// few nanoseconds: a recursion over tiny pieces (a tree's nodes) runs
// faster forking only above a depth or a size, with the plain recursion
// below.
//
// Pass a function that is not a closure (or a closure created once, outside
// the recursion): a closure created at every level is an allocation per
// call. Put everything the two halves differ in into A, and keep A small;
// it is copied into the record.
//
// # Panics
//
// As Join: if f panics for a or for b, JoinFunc still waits for the other
// call, then re-panics with a *Panic (a's if both panicked). A panic in the
// call for a does not skip the call for b.
//
// On a nil Worker, JoinFunc calls f(nil, a), then f(nil, b), with the same
// panic behaviour. A nil f panics at once.
func JoinFunc[A, R any](w *Worker, f func(*Worker, A) R, a, b A) (ra, rb R) {
	return sched.JoinFunc(w, f, a, b)
}
