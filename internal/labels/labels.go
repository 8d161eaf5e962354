// Package labels carries a goroutine's pprof labels to the goroutines that
// run its work, as a go statement does.
//
// A goroutine started with go inherits its creator's labels
// (runtime/pprof.Do, SetGoroutineLabels), so a hand-written fan-out inside
// a labelled request shows every sample of its work under the request's
// labels. gopar's workers are reused across callers: a job records the
// labels of the goroutine that made it (Current), and the worker that runs
// it wears them for as long as it runs (Wear), then takes its own back.
//
// Go offers no public way to read a goroutine's labels. Current and Apply
// use the two functions runtime/pprof itself calls, which the Go runtime
// keeps for packages outside the standard library (it declares them with a
// linkname push and promises not to change their signatures). The labels
// stay opaque: gopar copies the runtime's pointer and never reads through
// it. Built with the gopar_nolabels tag, gopar carries no labels: workers
// run with none, and a callback on a worker shows no caller's labels.
package labels

// Set is a goroutine's label set as the runtime keeps it, compared by
// identity. The zero Set is no labels.
type Set struct{ p setPtr }

// Wear applies s to the calling goroutine unless it wears s already, and
// returns what it wore before and whether it changed: the caller gives it
// back with Apply(prev) once the work it runs for s has returned.
func Wear(s Set) (prev Set, changed bool) {
	prev = Current()
	if prev == s {
		return prev, false
	}
	Apply(s)
	return prev, true
}
