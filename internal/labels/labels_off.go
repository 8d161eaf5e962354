//go:build !gc || gopar_nolabels

package labels

import (
	"context"
	"runtime/pprof"
)

type setPtr = struct{}

// Current returns the zero Set: this build reads no labels.
func Current() Set { return Set{} }

// Apply clears the calling goroutine's labels: the only Set this build has
// is the zero one.
func Apply(Set) { pprof.SetGoroutineLabels(context.Background()) }

// Clear takes the calling goroutine's labels off.
func Clear() { pprof.SetGoroutineLabels(context.Background()) }

// Carried reports whether this build carries labels.
const Carried = false
