package par

import (
	"math"
	"slices"
	"testing"
)

// TestScanKernelsAgree: a block scanned in one pass from a known prefix
// (fused) gets the same bits as one scanned locally and then fixed up
// (local, fix), for floats, in place or not, under an op and under +; and
// the op and + kernels agree. Which of the two ways a block takes depends
// on timing, so the scan's bits are reproducible only if they agree.
func TestScanKernelsAgree(t *testing.T) {
	add := func(a, b float64) float64 { return a + b }
	for _, n := range []int{1, 2, 7, 100, scanBlock} {
		src := make([]float64, n)
		for i := range src {
			src[i] = float64(int64(i*2654435761%1000003)-500000) / 7
		}
		src[0] = math.Copysign(0, -1)
		for _, p := range []float64{0, math.Copysign(0, -1), 1e-3, -12345.678, 3e17} {
			for _, inclusive := range []bool{true, false} {
				var want []float64
				var wantR float64
				for kname, k := range map[string]scanKernels[float64]{
					"op":  opKernels(0, add, inclusive),
					"sum": sumKernels[float64](inclusive),
				} {
					for _, inPlace := range []bool{false, true} {
						fused := make([]float64, n)
						s := src
						if inPlace {
							copy(fused, src)
							s = fused
						}
						rf := k.fused(fused, s, p)
						split := make([]float64, n)
						s = src
						if inPlace {
							copy(split, src)
							s = split
						}
						rs := k.local(split, s)
						k.fix(split, p)
						if !sameBits(fused, split) || math.Float64bits(rf) != math.Float64bits(rs) {
							t.Fatalf("n=%d p=%v inclusive=%v %s in place=%v: fused and local+fix differ", n, p, inclusive, kname, inPlace)
						}
						if want == nil {
							want, wantR = fused, rf
						} else if !sameBits(fused, want) || math.Float64bits(rf) != math.Float64bits(wantR) {
							t.Fatalf("n=%d p=%v inclusive=%v: the op and + kernels differ", n, p, inclusive)
						}
					}
				}
			}
		}
	}
}

func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}
