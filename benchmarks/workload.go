package benchmarks

import (
	"slices"
	"strings"
)

// An Impl is one implementation of a workload.
type Impl struct {
	// Name is the implementation's name: "seq", "static", "static-fn", "dynamic",
	// "goroutine", "errgroup", "conc", "pargo", or a gopar variant ("gopar-item",
	// "gopar-block", "gopar-join").
	Name string
	// Run runs the whole workload once and returns its checksum.
	Run func() uint64
}

// A Target is one goal set for a workload: a ratio between the median times of two
// implementations of the same workload, measured side by side in one run.
type Target struct {
	// Impl is the implementation under test (a gopar variant).
	Impl string
	// Against is the implementation it is measured against, or BestPeer.
	Against string
	// Speedup selects the kind of ratio. When false the target is
	// time(Impl)/time(Against) <= Limit; when true it is
	// time(Against)/time(Impl) >= Limit.
	Speedup bool
	// Limit is the bound the ratio must meet.
	Limit float64
}

// BestPeer stands, in Target.Against, for the fastest of the peers in Peers.
const BestPeer = "best peer"

// Peers are the libraries a Go user would pick instead of gopar. A Target against
// BestPeer compares with the fastest of those present in the workload.
var Peers = []string{"errgroup", "conc", "pargo", "ants", "pond"}

// A Workload is one workload of README.md with all its implementations.
type Workload struct {
	// ID is the workload's id, "W0" to "W9".
	ID string
	// Name is its short name, such as "sum-light".
	Name string
	// What says in a few words what one run computes.
	What string
	// Balanced reports whether the static fan-out is expected to scale on this
	// workload (equal chunks hold equal work), so that its speedup over seq
	// tells whether the machine gave us all its cores during the run.
	Balanced bool
	// Impls are the implementations, seq first.
	Impls []Impl
	// Targets are the goals set for this workload.
	Targets []Target
	// Items, if positive, is the number of items one run handles: the
	// benchmarks and cmd/compare then report allocations per item.
	Items int
}

// Impl returns the implementation with the given name, or false.
func (w *Workload) Impl(name string) (Impl, bool) {
	for _, im := range w.Impls {
		if im.Name == name {
			return im, true
		}
	}
	return Impl{}, false
}

// add appends implementations to the workload with the given id; it is how the
// gopar variants join the lists.
func add(id string, impls ...Impl) {
	for _, w := range All {
		if w.ID == id {
			w.Impls = append(w.Impls, impls...)
			return
		}
	}
	panic("benchmarks: no workload " + id)
}

// All lists the workloads in order, W0 to W11 (W10 at four counts).
var All = []*Workload{W0, W1, W2, W3, W4, W5, W6, W7, W8, W9, W10x2, W10x4, W10xP, W10x2P, W11}

// Lookup returns the workload with the given id ("W3", "T1", "probe"), or
// nil. Case does not matter unless two ids differ only in case, where the
// exact one wins.
func Lookup(id string) *Workload {
	var folded *Workload
	for _, w := range slices.Concat(All, Toolkit, Streams, Keyed, Recursion, []*Workload{Probe}) {
		if w.ID == id {
			return w
		}
		if folded == nil && strings.EqualFold(w.ID, id) {
			folded = w
		}
	}
	return folded
}

// Probe is a balanced workload, the sum of mix(i) over [0, 2^25), with two
// implementations, seq and static. Run beside a workload on which the static
// fan-out cannot scale (uneven work, tiny inputs, no loop to split), its static
// speedup over seq tells whether the machine gave the run all its cores.
//
// It takes tens of milliseconds so that what it sees is a missing core, not the
// time an idle virtual CPU takes to wake up (up to milliseconds on the shared
// machines), which a probe of a few milliseconds mistakes for one.
var Probe = &Workload{
	ID:       "probe",
	Name:     "probe",
	What:     "sum of mix(i), i in [0, 2^25)",
	Balanced: true,
	Impls: []Impl{
		{"seq", func() uint64 { return mixBlock(0, probeN) }},
		{"static", func() uint64 { return static(probeN, mixBlock) }},
	},
}

const probeN = 1 << 25
