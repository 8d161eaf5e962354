package par

import "github.com/gopar-dev/gopar/runtime"

// Join runs a and b, possibly in parallel, on the default pool, and returns
// when both have returned.
//
// The calling goroutine runs a itself while b is offered to the pool's idle
// workers; if nobody took b by the time a returns, the caller runs b too.
// While it waits for a b that was taken, the caller runs other pool work, so
// Join may be nested freely (inside a, inside b, inside ForEach) without
// deadlock, even with a single worker.
//
// If a or b panics, Join waits for the other and then re-panics with a
// *runtime.Panic that holds the original value and stack (a's, if both
// panicked).
//
// Join from an arbitrary goroutine costs a guest-slot lease on top of the
// fork itself; recursive code that forks at every level is faster with
// runtime.Worker.Join, which passes the worker down.
func Join(a, b func()) {
	mustFunc(a, "Join")
	mustFunc(b, "Join")
	runtime.Default().Join(
		func(*runtime.Worker) { a() },
		func(*runtime.Worker) { b() },
	)
}
