package par_test

import (
	"encoding/binary"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// The fuzz targets of the scans and Partition. Their seeds run with every
// go test; run one for longer with, for example,
//
//	go test -run '^$' -fuzz '^FuzzScan$' -fuzztime 3m ./par

// fuzzWord is the i-th 8-byte word of data read cyclically (data is not
// empty), so that a short input still fills a long slice, and the fuzzer
// can reach any bit pattern: -0.0, NaN, infinities, subnormals.
func fuzzWord(data []byte, i int) uint64 {
	var w [8]byte
	for b := range w {
		w[b] = data[(i*8+b)%len(data)]
	}
	return binary.LittleEndian.Uint64(w[:])
}

// FuzzScan: on 1, 2, 3 and 8 workers, into dst and in place, inclusive and
// exclusive, an int64 scan (op and + forms) and a scan of 2x2 matrices (not
// commutative) give the loop's answer exactly, and a float64 scan gives the
// same bits on every worker count and in both forms (NaN payloads aside). n up to 65535 is up to
// eight blocks.
func FuzzScan(f *testing.F) {
	f.Add([]byte{1, 2, 3}, uint16(5), true)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0x80}, uint16(3*par.ScanBlock+7), false)                               // -0.0
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 1, 0, 0, 0, 0, 0, 0xf0, 0x7f}, uint16(2*par.ScanBlock), true) // NaN, +Inf
	f.Add([]byte("the quick brown fox"), uint16(par.ScanBlock+1), false)
	f.Add([]byte{0xff}, uint16(65535), true)
	f.Fuzz(func(t *testing.T, data []byte, n uint16, inclusive bool) {
		if len(data) == 0 {
			data = []byte{0}
		}
		ints := make([]int64, n)
		floats := make([]float64, n)
		mats := make([]mat, n)
		for i := range ints {
			w := fuzzWord(data, i)
			ints[i] = int64(w)
			floats[i] = math.Float64frombits(w)
			mats[i] = mat{w & 0xffff, w >> 16 & 0xffff, w >> 32 & 0xffff, w >> 48}
		}
		add := func(a, b int64) int64 { return a + b }
		addF := func(a, b float64) float64 { return a + b }
		wantI, totalI := loopScan(ints, 0, add, inclusive)
		wantM, totalM := loopScan(mats, mat{1, 0, 0, 1}, mul, inclusive)
		var wantF []float64
		var totalF float64
		for _, p := range scanPools() {
			for _, inPlace := range []bool{false, true} {
				dst := make([]int64, n)
				if inPlace {
					copy(dst, ints)
				}
				src := ints
				if inPlace {
					src = dst
				}
				if total := par.ScanSumOn(p, dst, src, inclusive); total != totalI || !slices.Equal(dst, wantI) {
					t.Fatalf("%d workers, in place %v, inclusive %v: the int64 + scan differs from the loop's", p.Workers(), inPlace, inclusive)
				}
				if !inPlace {
					clear(dst)
				} else {
					copy(dst, ints)
				}
				if total := par.ScanOn(p, dst, src, 0, add, inclusive); total != totalI || !slices.Equal(dst, wantI) {
					t.Fatalf("%d workers, in place %v, inclusive %v: the int64 op scan differs from the loop's", p.Workers(), inPlace, inclusive)
				}
			}
			gotM := slices.Clone(mats)
			if total := par.ScanOn(p, gotM, gotM, mat{1, 0, 0, 1}, mul, inclusive); total != totalM || !slices.Equal(gotM, wantM) {
				t.Fatalf("%d workers, inclusive %v: the matrix scan differs from the loop's", p.Workers(), inclusive)
			}
			for _, sum := range []bool{false, true} {
				dst := make([]float64, n)
				var total float64
				if sum {
					total = par.ScanSumOn(p, dst, floats, inclusive)
				} else {
					total = par.ScanOn(p, dst, floats, 0, addF, inclusive)
				}
				if wantF == nil {
					wantF, totalF = dst, total
				} else if !sameFloatBits(dst, wantF) || !sameFloat(total, totalF) {
					t.Fatalf("%d workers, + form %v, inclusive %v: the float scan's bits differ from 1 worker's op form", p.Workers(), sum, inclusive)
				}
			}
		}
	})
}

// sameFloatBits compares bit patterns, except that any two NaNs are equal:
// Go does not say which operand's payload a sum of two NaNs keeps, and the
// compiler may order the operands of + and of op(a, b) differently.
func sameFloatBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, sameFloat)
}

func sameFloat(x, y float64) bool {
	return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
}

// FuzzPartition: on 1, 2, 3 and 8 workers, over a slice, a range, a mapped
// range, a filtered slice and a sequence, Partition calls pred exactly once
// per item and gives the loop's two parts in source order. pred's answers
// come from the fuzzer's bytes.
func FuzzPartition(f *testing.F) {
	f.Add([]byte{1}, uint16(10), uint8(0))
	f.Add([]byte{0}, uint16(5000), uint8(1))
	f.Add([]byte{1, 0, 0}, uint16(4097), uint8(2))
	f.Add([]byte("partition"), uint16(30000), uint8(3))
	f.Add([]byte{0xff, 0xfe}, uint16(65535), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, n uint16, form uint8) {
		if len(data) == 0 {
			data = []byte{0}
		}
		xs := make([]int, n)
		for i := range xs {
			xs[i] = i
		}
		wants := func(x int) bool { return data[x%len(data)]&1 == 1 }
		wantYes, wantNo := loopPartition(xs, wants)
		for _, p := range scanPools() {
			calls := make([]atomic.Int32, n)
			pred := func(x int) bool {
				calls[x].Add(1)
				return wants(x)
			}
			var it par.Iter[int]
			switch form % 5 {
			case 0:
				it = par.Slice(xs)
			case 1:
				it = par.Range(0, int(n)).Iter
			case 2:
				it = par.Map(par.Range(0, int(n)), func(i int) int { return i })
			case 3:
				it = par.Slice(xs).Filter(func(int) bool { return true })
			default:
				it = par.FromSeq(slices.Values(xs))
			}
			yes, no := it.WithPool(p).Partition(pred)
			for x := range calls {
				if c := calls[x].Load(); c != 1 {
					t.Fatalf("form %d, %d workers: pred ran %d times on item %d", form%5, p.Workers(), c, x)
				}
			}
			if !slices.Equal(yes, wantYes) || !slices.Equal(no, wantNo) {
				t.Fatalf("form %d, %d workers: got %d and %d items, want %d and %d in source order", form%5, p.Workers(), len(yes), len(no), len(wantYes), len(wantNo))
			}
		}
	})
}
