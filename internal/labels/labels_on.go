//go:build gc && !gopar_nolabels

package labels

import "unsafe"

type setPtr = unsafe.Pointer

// Current returns the calling goroutine's labels.
func Current() Set { return Set{getProfLabel()} }

// Apply makes s the calling goroutine's labels.
func Apply(s Set) { setProfLabel(s.p) }

// Clear takes the calling goroutine's labels off, if it wears any. It
// changes nothing otherwise: under the race detector, every change orders
// the goroutines that read labels after it, which would hide races.
func Clear() {
	if getProfLabel() != nil {
		setProfLabel(nil)
	}
}

// Carried reports whether this build carries labels.
const Carried = true

//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

//go:linkname setProfLabel runtime/pprof.runtime_setProfLabel
func setProfLabel(labels unsafe.Pointer)
