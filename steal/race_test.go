//go:build race

package steal

// stressOps is the number of deque operations (pushes + pops + successful
// steals) the concurrent stress test performs. The race detector slows atomics
// down by two orders of magnitude, so it gets a smaller budget.
const stressOps = 1_000_000

// injectorStressItems is the number of items pushed through the injector in its
// stress test.
const injectorStressItems = 200_000
