package par_test

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// scanSizes cross the scan's block boundary (8192 elements) and give one
// to a hundred blocks.
var scanSizes = []int{0, 1, 2, 8191, 8192, 8193, 3*8192 + 5, 32*8192 - 1, 100*8192 + 17}

// loopScan is the sequential scan the parallel ones must match.
func loopScan[T any](src []T, identity T, op func(T, T) T, inclusive bool) ([]T, T) {
	dst := make([]T, len(src))
	acc := identity
	for i, x := range src {
		if !inclusive {
			dst[i] = acc
		}
		acc = op(acc, x)
		if inclusive {
			dst[i] = acc
		}
	}
	return dst, acc
}

func TestScanMatchesLoop(t *testing.T) {
	add := func(a, b int64) int64 { return a + b }
	for _, n := range scanSizes {
		src := make([]int64, n)
		for i := range src {
			src[i] = int64(mixInt(i)) // wraps: exercises overflow too
		}
		for _, inclusive := range []bool{true, false} {
			want, wantTotal := loopScan(src, 0, add, inclusive)
			forms := map[string]func(dst, src []int64) int64{
				"op": func(dst, src []int64) int64 {
					if inclusive {
						return par.ScanInclusive(dst, src, 0, add)
					}
					return par.ScanExclusive(dst, src, 0, add)
				},
				"sum": func(dst, src []int64) int64 {
					if inclusive {
						return par.ScanSumInclusive(dst, src)
					}
					return par.ScanSumExclusive(dst, src)
				},
			}
			for name, scan := range forms {
				dst := make([]int64, n+3) // longer: the tail stays
				dst[n], dst[n+1], dst[n+2] = 7, 8, 9
				if total := scan(dst, src); total != wantTotal || !slices.Equal(dst[:n], want) || !slices.Equal(dst[n:], []int64{7, 8, 9}) {
					t.Fatalf("n=%d inclusive=%v %s into dst: total %d (want %d), equal %v, tail %v", n, inclusive, name, total, wantTotal, slices.Equal(dst[:n], want), dst[n:])
				}
				inPlace := slices.Clone(src)
				if total := scan(inPlace, inPlace); total != wantTotal || !slices.Equal(inPlace, want) {
					t.Fatalf("n=%d inclusive=%v %s in place: total %d (want %d), equal %v", n, inclusive, name, total, wantTotal, slices.Equal(inPlace, want))
				}
			}
		}
	}
}

// span is an operand that knows which items it covers: joining two spans
// that are not adjacent, left then right, poisons the result, so any
// combination out of order or twice shows.
type span struct{ lo, hi int }

func joinSpans(a, b span) span {
	switch {
	case a.lo < 0 || b.lo < 0 || a.hi != b.lo:
		return span{-1, -1}
	}
	return span{a.lo, b.hi}
}

// mat is a 2x2 matrix of wrapping uint64s: an associative product that is
// not commutative.
type mat [4]uint64

func mul(a, b mat) mat {
	return mat{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
}

// TestScanNonCommutative: spans, matrix products and string concatenation
// give the loop's answer.
func TestScanNonCommutative(t *testing.T) {
	for _, n := range scanSizes {
		spans := make([]span, n)
		mats := make([]mat, n)
		for i := range spans {
			spans[i] = span{i, i + 1}
			m := mixInt(i)
			mats[i] = mat{m & 7, m >> 3 & 7, m >> 6 & 7, m >> 9 & 7}
		}
		for _, inclusive := range []bool{true, false} {
			wantS, totalS := loopScan(spans, span{0, 0}, joinSpans, inclusive)
			wantM, totalM := loopScan(mats, mat{1, 0, 0, 1}, mul, inclusive)
			scanS, scanM := par.ScanExclusive[span], par.ScanExclusive[mat]
			if inclusive {
				scanS, scanM = par.ScanInclusive[span], par.ScanInclusive[mat]
			}
			gotS := make([]span, n)
			if total := scanS(gotS, spans, span{0, 0}, joinSpans); total != totalS || !slices.Equal(gotS, wantS) {
				t.Fatalf("n=%d inclusive=%v: spans combined out of order (total %v, want %v)", n, inclusive, total, totalS)
			}
			gotM := slices.Clone(mats)
			if total := scanM(gotM, gotM, mat{1, 0, 0, 1}, mul); total != totalM || !slices.Equal(gotM, wantM) {
				t.Fatalf("n=%d inclusive=%v: matrix products differ from the loop's", n, inclusive)
			}
		}
	}
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	concat := func(a, b string) string { return a + b }
	for _, inclusive := range []bool{true, false} {
		want, total := loopScan(words, "", concat, inclusive)
		got := make([]string, len(words))
		scan := par.ScanExclusive[string]
		if inclusive {
			scan = par.ScanInclusive[string]
		}
		if tot := scan(got, words, "", concat); tot != total || !slices.Equal(got, want) {
			t.Fatalf("inclusive=%v: %q, want %q", inclusive, got, want)
		}
	}
}

// floatScanHash scans 3*10^5 float64s both ways and hashes the bits of the
// results.
func floatScanHash() uint64 {
	src := make([]float64, 300_001)
	for i := range src {
		src[i] = float64(mixInt(i)%1_000_000)/7 - 60_000
	}
	h := fnv.New64a()
	for _, inclusive := range []bool{true, false} {
		dst := make([]float64, len(src))
		add := func(a, b float64) float64 { return a + b }
		var total, totalSum float64
		dstSum := make([]float64, len(src))
		if inclusive {
			total = par.ScanInclusive(dst, src, 0, add)
			totalSum = par.ScanSumInclusive(dstSum, src)
		} else {
			total = par.ScanExclusive(dst, src, 0, add)
			totalSum = par.ScanSumExclusive(dstSum, src)
		}
		if !slices.Equal(dst, dstSum) || total != totalSum {
			panic("the op and sum forms of a float scan differ")
		}
		for _, x := range append(dst, total) {
			fmt.Fprint(h, math.Float64bits(x), ",")
		}
	}
	return h.Sum64()
}

// TestScanFloatsSameBits: a float scan gives the same bits on default
// pools of 1, 3 and 8 workers (child processes, since the default pool is
// sized once per process) as here.
func TestScanFloatsSameBits(t *testing.T) {
	got := floatScanHash()
	if os.Getenv("GOPAR_TEST_CHILD") == "scan" {
		fmt.Printf("scan-hash %d\n", got)
		return
	}
	workers := []string{"1", "3", "8"}
	if race.Enabled {
		workers = workers[:2]
	}
	for _, w := range workers {
		cmd := exec.Command(os.Args[0], "-test.run=^TestScanFloatsSameBits$", "-test.v")
		cmd.Env = append(os.Environ(), "GOPAR_TEST_CHILD=scan", "GOPAR_WORKERS="+w)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child with GOPAR_WORKERS=%s failed: %v\n%s", w, err, out)
		}
		if want := fmt.Sprintf("scan-hash %d\n", got); !strings.Contains(string(out), want) {
			t.Fatalf("GOPAR_WORKERS=%s: the float scan's bits differ from this process's (%q):\n%s", w, want, out)
		}
	}
}

func TestScanBadInput(t *testing.T) {
	xs := []int{1, 2, 3, 4}
	mustPanicWith(t, "par.ScanInclusive was given a nil function", func() { par.ScanInclusive(xs, xs, 0, nil) })
	mustPanicWith(t, "par.ScanExclusive was given a nil function", func() { par.ScanExclusive(xs, xs, 0, nil) })
	mustPanicWith(t, "dst has 3 elements, fewer than src's 4", func() { par.ScanSumInclusive(make([]int, 3), xs) })
	mustPanicWith(t, "overlap without being the same slice", func() { par.ScanSumExclusive(xs[1:], xs[:3]) })
	mustPanicWith(t, "overlap without being the same slice", func() { par.ScanSumExclusive(xs[:3], xs[1:]) })
	if !slices.Equal(xs, []int{1, 2, 3, 4}) {
		t.Fatalf("a rejected scan wrote into xs: %v", xs)
	}
	if got := par.ScanInclusive(nil, []string{}, "id", func(a, b string) string { return a + b }); got != "id" {
		t.Fatalf("empty scan returned %q, want the identity", got)
	}
	par.ScanSumInclusive(xs[2:], xs[:2]) // adjacent, not overlapping
	if !slices.Equal(xs, []int{1, 2, 1, 3}) {
		t.Fatalf("scan into the adjacent half: %v", xs)
	}
	boom := errors.New("boom")
	for _, n := range []int{10, 1 << 20} {
		src := make([]int, n)
		src[n-3] = 1 // the op panics on this item only, near the end
		pv := func() (r any) {
			defer func() { r = recover() }()
			par.ScanExclusive(src, src, 0, func(a, b int) int {
				if b == 1 {
					panic(boom)
				}
				return a + b
			})
			return nil
		}()
		if p, ok := pv.(*runtime.Panic); !ok || !errors.Is(p, boom) {
			t.Fatalf("n=%d: recovered %T %v, want a *runtime.Panic of boom", n, pv, pv)
		}
	}
}

// scanPools are pools of 1, 2, 3 and 8 workers for the scans' tests and
// fuzz targets, made once: the chained scan's blocks wait for each other,
// and more workers than cores makes a block's claimer lose its core
// while the next one waits.
var scanPools = sync.OnceValue(func() []*runtime.Pool {
	var ps []*runtime.Pool
	for _, w := range []int{1, 2, 3, 8} {
		p, err := runtime.New(w)
		if err != nil {
			panic(err)
		}
		ps = append(ps, p)
	}
	return ps
})

// TestScanWorkerCounts: on 1, 2, 3 and 8 workers in one process, a float
// scan gives the same bits and a span scan (which poisons any combination
// out of order) the loop's answer, many times over, so that the blocks
// take both ways (one pass, or a local scan fixed up) in varied mixes.
func TestScanWorkerCounts(t *testing.T) {
	n := 40*par.ScanBlock + 123
	src := make([]float64, n)
	spans := make([]span, n)
	for i := range src {
		src[i] = float64(mixInt(i)%1_000_000)/7 - 60_000
		spans[i] = span{i, i + 1}
	}
	add := func(a, b float64) float64 { return a + b }
	for _, inclusive := range []bool{true, false} {
		var want []float64
		var wantTotal float64
		wantS, totalS := loopScan(spans, span{0, 0}, joinSpans, inclusive)
		for round := range max(2, long.Pick(20, 6)/race.Scale) {
			for _, p := range scanPools() {
				dst := make([]float64, n)
				total := par.ScanSumOn(p, dst, src, inclusive)
				if round%2 == 1 {
					total = par.ScanOn(p, dst, src, 0, add, inclusive)
				}
				if want == nil {
					want, wantTotal = dst, total
				} else if !slices.EqualFunc(dst, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) ||
					math.Float64bits(total) != math.Float64bits(wantTotal) {
					t.Fatalf("inclusive=%v round %d, %d workers: the float scan's bits differ", inclusive, round, p.Workers())
				}
				gotS := make([]span, n)
				if total := par.ScanOn(p, gotS, spans, span{0, 0}, joinSpans, inclusive); total != totalS || !slices.Equal(gotS, wantS) {
					t.Fatalf("inclusive=%v round %d, %d workers: spans combined out of order", inclusive, round, p.Workers())
				}
			}
		}
	}
}

// TestScanNested: scans inside a parallel loop (their participants'
// workers are busy, so the callers claim most blocks), and a scan whose op
// runs a parallel loop itself, give the loop's answer.
func TestScanNested(t *testing.T) {
	n := 5*par.ScanBlock + 9
	src := make([]int64, n)
	for i := range src {
		src[i] = int64(mixInt(i) % 1000)
	}
	add := func(a, b int64) int64 { return a + b }
	want, wantTotal := loopScan(src, 0, add, true)
	par.Range(0, 8).ForEach(func(int) {
		dst := make([]int64, n)
		if total := par.ScanSumInclusive(dst, src); total != wantTotal || !slices.Equal(dst, want) {
			t.Errorf("a scan inside ForEach differs from the loop's")
		}
	})
	small := src[:3*par.ScanBlock]
	want, wantTotal = loopScan(small, 0, add, false)
	dst := make([]int64, len(small))
	total := par.ScanExclusive(dst, small, 0, func(a, b int64) int64 {
		if b%97 == 0 { // now and then, a nested parallel sum of nothing
			return a + b + int64(par.Range(0, 2).Map(func(int) int { return 0 }).Sum())
		}
		return a + b
	})
	if total != wantTotal || !slices.Equal(dst, want) {
		t.Fatalf("a scan whose op runs a parallel loop differs from the loop's")
	}
}

// TestScanPanicReleasesWaiters: a panic in op while scanning block 0, a
// middle block or the last ends the scan on every worker count: the
// participants waiting for the blocks after the panicking one stop
// waiting (without stop they would wait forever).
func TestScanPanicReleasesWaiters(t *testing.T) {
	boom := errors.New("boom")
	n := 16*par.ScanBlock + 1
	for _, at := range []int{5, 7*par.ScanBlock + 3, n - 1} {
		for _, p := range scanPools() {
			src := make([]int, n)
			src[at] = 1
			pv := func() (r any) {
				defer func() { r = recover() }()
				par.ScanOn(p, src, src, 0, func(a, b int) int {
					if b == 1 {
						panic(boom)
					}
					return a + b
				}, false)
				return nil
			}()
			if pe, ok := pv.(*runtime.Panic); !ok || !errors.Is(pe, boom) {
				t.Fatalf("panic at %d on %d workers: recovered %T %v, want a *runtime.Panic of boom", at, p.Workers(), pv, pv)
			}
		}
	}
}
