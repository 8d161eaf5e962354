package benchmarks

// W5 is "mandelbrot": the Mandelbrot set on a 1024x1024 grid over
// [-2, 1] x [-1.5, 1.5], at most 2000 iterations a pixel, one item per row. The
// checksum is the total number of iterations. Rows through the set cost far
// more than rows outside it, but the picture is symmetric, so a static halving
// happens to balance it.
var W5 = &Workload{
	ID:       "W5",
	Name:     "mandelbrot",
	What:     "1024x1024 over [-2,1]x[-1.5,1.5], max 2000 iterations, one item per row",
	Balanced: true,
	Impls:    w5Loop.baselines(),
	// No target against static: a static halving happens to balance it.
	Targets: unevenTargets(0),
}

const (
	mandelSize = 1024
	mandelIter = 2000
)

// w5Loop: chunks of one row, 1024 of them.
var w5Loop = loop{n: mandelSize, item: mandelRow, block: mandelBlock, chunk: 1, perItem: true}

// mandelRow returns the total iterations of row y.
func mandelRow(y int) uint64 {
	ci := -1.5 + 3*float64(y)/mandelSize
	var total uint64
	for x := 0; x < mandelSize; x++ {
		cr := -2 + 3*float64(x)/mandelSize
		var zr, zi float64
		it := 0
		for ; it < mandelIter && zr*zr+zi*zi <= 4; it++ {
			zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		}
		total += uint64(it)
	}
	return total
}

// mandelBlock returns the total iterations of rows [lo, hi).
func mandelBlock(lo, hi int) uint64 {
	var s uint64
	for y := lo; y < hi; y++ {
		s += mandelRow(y)
	}
	return s
}
