package benchmarks

// The balanced probe of the commands that measure outside cmd/compare
// (cmd/stream, cmd/neighbour): the same items summed by a plain loop and
// by the static fan-out, whose speedup says whether the machine had its
// cores during the run (trusted at >= 1.7x on 2 cores). Both call the
// item through a func value, so that the ratio is the fan-out's alone.

// LoopSum is item(i) summed over [0, n) on the calling goroutine.
func LoopSum(n int, item func(int) uint64) uint64 { return itemBlock(item, 0, n) }

// StaticSum is item(i) summed over [0, n) by GOMAXPROCS goroutines, each
// over an equal contiguous part (staticFn).
func StaticSum(n int, item func(int) uint64) uint64 { return staticFn(n, item) }

// Mix is the workloads' unit of work (mix), for the commands' keys and
// probe items (cmd/keys).
func Mix(x uint64) uint64 { return mix(x) }
