//go:build !race

package steal

// stressOps is the number of deque operations (pushes + pops + successful
// steals) the concurrent stress test performs: at least 10^7, so that rare
// interleavings (the owner and a thief racing for the last item right after a
// grow) get a fair chance to happen.
const stressOps = 10_000_000

// injectorStressItems is the number of items pushed through the injector in its
// stress test.
const injectorStressItems = 1_000_000
