// Package link carries package runtime's plumbing to the layers above it.
//
// runtime declares the pool's public types, and keeps unexported what only
// internal/pipe and par use: the driver's calls into the pool (a parallel
// region, an offer, a wait, lazy promotion) and the carrying of a panic or
// Goexit across goroutines. Its init stores each of those functions here,
// as a value of type any; internal/plumb, above runtime, asserts each one
// once into a variable of its type, which the layers above call. The values
// are any because this package sits below runtime and cannot name its
// types.
//
// Only runtime writes these variables, and only internal/plumb reads them.
package link

// The plumbing, one variable per function of runtime (runtime/link.go lists
// their types).
var (
	Block, Hungry, Inject, Offer, Wait, SpawnTask, Bound any

	Enter, Leave, Open, Close, Abandon any

	Promote, Reclaim, WaitPromoted, CheckEnded any

	NewPanic, Catch, Unwinding, Raise, Stronger, CallAfter, Record any
)
