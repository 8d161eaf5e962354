package benchmarks

import (
	"runtime"
	"slices"
	"strings"
	"testing"
)

// sink keeps the checksums alive so that no run can be optimized away.
var sink uint64

// bench runs one sub-benchmark per implementation of w, so that names read
// BenchmarkW1/static, BenchmarkW1/gopar-item, and so on. Where w counts its
// items, each also reports allocs/item.
func bench(b *testing.B, w *Workload) {
	for _, im := range w.Impls {
		b.Run(im.Name, func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				sink += im.Run()
			}
			runtime.ReadMemStats(&after)
			if w.Items > 0 {
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*w.Items), "allocs/item")
			}
		})
	}
}

func BenchmarkW0(b *testing.B) { bench(b, W0) }
func BenchmarkW1(b *testing.B) { bench(b, W1) }
func BenchmarkW2(b *testing.B) { bench(b, W2) }
func BenchmarkW3(b *testing.B) { bench(b, W3) }
func BenchmarkW4(b *testing.B) { bench(b, W4) }
func BenchmarkW5(b *testing.B) { bench(b, W5) }
func BenchmarkW6(b *testing.B) { bench(b, W6) }
func BenchmarkW7(b *testing.B) { bench(b, W7) }
func BenchmarkW8(b *testing.B) { bench(b, W8) }
func BenchmarkW9(b *testing.B) { bench(b, W9) }

// BenchmarkW10 runs W10 at its four counts, as BenchmarkW10/2/goroutine,
// BenchmarkW10/P/gopar-item and so on. The compare command reports each
// count against the best peer's median; a series of these, alternated
// between processes, gives each peer's ratio an interval of its own.
func BenchmarkW10(b *testing.B) {
	for _, w := range []*Workload{W10x2, W10x4, W10xP, W10x2P} {
		b.Run(strings.TrimPrefix(w.ID, "W10-"), func(b *testing.B) { bench(b, w) })
	}
}

func BenchmarkW11(b *testing.B) { bench(b, W11) }

func BenchmarkT1(b *testing.B) { bench(b, T1) }
func BenchmarkT2(b *testing.B) { bench(b, T2) }
func BenchmarkT3(b *testing.B) { bench(b, T3) }
func BenchmarkT4(b *testing.B) { bench(b, T4) }
func BenchmarkT5(b *testing.B) { bench(b, T5) }
func BenchmarkT6(b *testing.B) { bench(b, T6) }
func BenchmarkT7(b *testing.B) { bench(b, T7) }

func BenchmarkS1(b *testing.B) { bench(b, S1) }
func BenchmarkS2(b *testing.B) { bench(b, S2) }
func BenchmarkS3(b *testing.B) { bench(b, S3) }
func BenchmarkS4(b *testing.B) { bench(b, S4) }
func BenchmarkS5(b *testing.B) { bench(b, S5) }
func BenchmarkS6(b *testing.B) { bench(b, S6) }
func BenchmarkS7(b *testing.B) { bench(b, S7) }

func BenchmarkK1(b *testing.B) { bench(b, K1) }
func BenchmarkK2(b *testing.B) { bench(b, K2) }
func BenchmarkK3(b *testing.B) { bench(b, K3) }
func BenchmarkR1(b *testing.B) { bench(b, R1) }
func BenchmarkR2(b *testing.B) { bench(b, R2) }

// TestChecksums checks that every implementation of every workload returns the
// checksum of seq. With -short it skips the slowest implementations.
func TestChecksums(t *testing.T) {
	for _, w := range slices.Concat(All, Toolkit, Streams, Keyed, Recursion) {
		if testing.Short() && w == T4 {
			continue // about 15 s
		}
		t.Run(w.ID, func(t *testing.T) {
			want := w.Impls[0].Run()
			for _, im := range w.Impls[1:] {
				if testing.Short() && w.ID == "W6" && im.Name != "gopar-join" {
					continue // a goroutine per fork takes about a second
				}
				if got := im.Run(); got != want {
					t.Errorf("%s %s: checksum %#x, seq has %#x", w.ID, im.Name, got, want)
				}
			}
		})
	}
}

// TestTargets checks that every target names implementations that exist.
func TestTargets(t *testing.T) {
	for _, w := range slices.Concat(All, Toolkit, Streams, Keyed, Recursion) {
		if _, ok := w.Impl("seq"); !ok || w.Impls[0].Name != "seq" {
			t.Errorf("%s: seq is not the first implementation", w.ID)
		}
		for _, tg := range w.Targets {
			if _, ok := w.Impl(tg.Impl); !ok {
				t.Errorf("%s: target names %s, which the workload lacks", w.ID, tg.Impl)
			}
			if _, ok := w.Impl(tg.Against); !ok && tg.Against != BestPeer {
				t.Errorf("%s: target measures against %s, which the workload lacks", w.ID, tg.Against)
			}
		}
	}
}
