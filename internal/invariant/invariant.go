// Package invariant holds the switch for gopar's internal consistency
// checks. Built with the gopar_debug tag, the lock-free structures and the
// schedulers check their invariants as they run (the stress and fuzz tests
// are run that way in CI); without it, every check compiles away:
//
//	if invariant.Enabled && lo >= hi {
//		invariant.Failf("Take returned the empty block [%d, %d)", lo, hi)
//	}
//
// The condition is tested at the call site, not passed in: the arguments
// of a variadic call are boxed, an allocation per check even when it holds.
package invariant

import "fmt"

// Failf panics with a message that says which invariant broke.
func Failf(format string, args ...any) {
	panic("gopar: internal invariant broken (please report this bug): " + fmt.Sprintf(format, args...))
}
