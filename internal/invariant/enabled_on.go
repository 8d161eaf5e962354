//go:build gopar_debug

package invariant

// Enabled reports whether the invariant checks are compiled in (build tag
// gopar_debug).
const Enabled = true
