package par

import "github.com/gopar-dev/gopar/runtime"

// ScanOn and ScanSumOn are the scans on a given pool, so that a test or a
// fuzz target can compare worker counts in one process; the exported
// scans use the default pool, sized once per process.

func ScanOn[T any](p *runtime.Pool, dst, src []T, identity T, op func(T, T) T, inclusive bool) T {
	return scanWith(p, dst, src, identity, "ScanOn", opKernels(identity, op, inclusive))
}

func ScanSumOn[T Number](p *runtime.Pool, dst, src []T, inclusive bool) T {
	return scanWith(p, dst, src, 0, "ScanSumOn", sumKernels[T](inclusive))
}

// ScanBlock is the scans' block length.
const ScanBlock = scanBlock
