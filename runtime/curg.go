//go:build gc && (amd64 || arm64) && !gopar_nocurg

package runtime

// curG identifies the calling goroutine: the address of the Go runtime's
// record of it (its g), read from where the runtime keeps it (curg_amd64.s,
// curg_arm64.s). Go has no goroutine-local storage, so this is how Spawn
// tells whether its caller is the goroutine acting as a Worker, which alone
// may push onto the Worker's deque (see Scope.Spawn). Two goroutines alive
// at the same time never share a g, and a goroutine keeps its g for life; a
// g is reused only after its goroutine has ended, which is why a Worker's
// owner is cleared before its goroutine ends (see Worker.owner).
//
// It costs one call and two loads, and it is never 0.
func curG() uintptr

// haveCurG says whether curG is implemented on this platform. Where it is
// not (curg_other.go, or the gopar_nocurg build tag), or where the
// self-test fails (curgcheck.go), Spawn treats every caller as a foreign
// goroutine: correct, only slower.
const haveCurG = true
