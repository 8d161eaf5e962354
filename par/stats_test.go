package par_test

import (
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// TestStatsAgreeWithTheTimeline: an operation recorded with both WithStats
// and WithTimeline reports, in its statistics, what its timeline shows:
// every item of the input once, the timeline's blocks and steals, and its
// lanes as the participants, each with its lane's items and blocks.
func TestStatsAgreeWithTheTimeline(t *testing.T) {
	n := 1 << 16 / race.Scale
	pool := poolForWithin(t, 4)
	forms := map[string]func(st *par.Stats, tl *par.Timeline){
		"Range.ForEach": func(st *par.Stats, tl *par.Timeline) {
			par.Range(0, n).WithPool(pool).WithStats(st).WithTimeline(tl).ForEach(func(i int) { burn(uint64(i % 7)) })
		},
		"Map.Sum": func(st *par.Stats, tl *par.Timeline) {
			par.Range(0, n).WithPool(pool).WithStats(st).WithTimeline(tl).Map(func(i int) int { return int(burnItem(i % 5)) }).Sum()
		},
		"Fold": func(st *par.Stats, tl *par.Timeline) {
			par.Fold(par.Slice(make([]int, n)).WithPool(pool).WithStats(st).WithTimeline(tl),
				func() int { return 0 }, func(a, i int) int { return a + int(burnItem(i)) }, func(a, b int) int { return a + b })
		},
		"Blocking": func(st *par.Stats, tl *par.Timeline) {
			par.Range(0, 256).WithStats(st).WithTimeline(tl).Blocking(4).ForEach(func(i int) { burn(uint64(i)) })
		},
		"FromSeq.ForEach": func(st *par.Stats, tl *par.Timeline) {
			par.FromSeq(slices.Values(make([]int, n))).WithPool(pool).WithStats(st).WithTimeline(tl).ForEach(func(i int) { burn(uint64(i)) })
		},
		"FromSeq.Values": func(st *par.Stats, tl *par.Timeline) {
			for range par.FromSeq(slices.Values(make([]int, n))).WithPool(pool).WithStats(st).WithTimeline(tl).Values() {
			}
		},
	}
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			for range 3 {
				var st par.Stats
				var tl par.Timeline
				form(&st, &tl)
				items, blocks := 0, 0
				if len(st.Participants) != len(tl.Lanes) {
					t.Fatalf("%d participants, %d lanes:\n%v", len(st.Participants), len(tl.Lanes), st)
				}
				for i, l := range tl.Lanes {
					p := st.Participants[i]
					li := 0
					for _, b := range l.Blocks {
						li += b.Hi - b.Lo
					}
					if p.Name != l.Name || p.Items != li || p.Blocks != len(l.Blocks) {
						t.Errorf("participant %d: %s, %d items in %d blocks; its lane: %s, %d in %d", i, p.Name, p.Items, p.Blocks, l.Name, li, len(l.Blocks))
					}
					if p.Busy <= 0 || p.Busy > st.Elapsed {
						t.Errorf("%s busy %v of %v", p.Name, p.Busy, st.Elapsed)
					}
					items += p.Items
					blocks += p.Blocks
				}
				want := n
				if name == "Blocking" {
					want = 256
				}
				if st.Items != want || items != want || st.Blocks != blocks {
					t.Errorf("%d items (participants: %d) in %d blocks (%d); want %d items", st.Items, items, st.Blocks, blocks, want)
				}
				if st.Steals != len(tl.Steals) {
					t.Errorf("%d steals, the timeline shows %d", st.Steals, len(tl.Steals))
				}
				if (st.FirstParallel > 0) != (len(tl.Lanes) > 1 || (len(tl.Lanes) == 1 && tl.Lanes[0].Name != "caller")) {
					t.Errorf("FirstParallel %v with lanes %d", st.FirstParallel, len(tl.Lanes))
				}
			}
		})
	}
}

// TestStatsAfterAPanic: an operation whose callback panics still writes
// its statistics, of what ran, before the panic reaches the caller.
func TestStatsAfterAPanic(t *testing.T) {
	var st par.Stats
	func() {
		defer func() { recover() }()
		par.Range(0, 1000).WithStats(&st).ForEach(func(i int) {
			if i == 999 {
				panic("boom")
			}
		})
	}()
	if st.Elapsed <= 0 || st.Items > 1000 {
		t.Errorf("after a panic: %v", st)
	}
}

// TestStatsString: the layout names every participant.
func TestStatsString(t *testing.T) {
	var st par.Stats
	par.Range(0, 1<<14).WithStats(&st).ForEach(func(i int) { burn(uint64(i)) })
	s := st.String()
	t.Log("\n" + s)
	if !strings.Contains(s, fmt.Sprintf("%d items in %d blocks", st.Items, st.Blocks)) {
		t.Errorf("String():\n%s", s)
	}
	for _, p := range st.Participants {
		if !strings.Contains(s, p.Name) {
			t.Errorf("String() lacks %s:\n%s", p.Name, s)
		}
	}
}

// ExampleIter_WithStats logs what an operation did with log/slog: the
// totals as attributes, and the per-goroutine analysis as its String.
func ExampleIter_WithStats() {
	var st par.Stats
	sum := par.Range(0, 1_000_000).WithStats(&st).Map(func(i int) int { return i % 7 }).Sum()

	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // for a reproducible output
			}
			return a
		},
	}))
	logger.Info("sum", "result", sum, "items", st.Items, "participants", len(st.Participants) > 0)
	// To log the whole analysis: logger.Debug("sum", "stats", st.String()).
	// Output:
	// level=INFO msg=sum result=2999997 items=1000000 participants=true
}

// BenchmarkStats times three shapes without statistics and with them: a
// cheap per-item sum (W1's shape, where a per-block cost shows most), a
// triangle of uneven items (W3's, with many steals), and a sequence of
// lines counted by word (S1's, FromSeq).
func BenchmarkStats(b *testing.B) {
	var st par.Stats
	b.Run("sum", func(b *testing.B) {
		benchSetting(b, func(r par.Ints) par.Ints { return r.WithStats(&st) })
	})
	n := 1 << 13
	if testing.Short() {
		n = 1 << 9
	}
	triangle := func(i int) int {
		x := uint64(i)
		for range i / 16 {
			x = uint64(mixInt(int(x)))
		}
		return int(x & 1)
	}
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("triangle/stats=%v", on), func(b *testing.B) {
			for range b.N {
				r := par.Range(0, n)
				if on {
					r = r.WithStats(&st)
				}
				sink = r.Map(triangle).Sum()
			}
		})
	}
	text := strings.Repeat("the quick brown fox jumps over the lazy dog\n", 1<<14)
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("lines/stats=%v", on), func(b *testing.B) {
			for range b.N {
				it := par.FromSeq(strings.Lines(text))
				if on {
					it = it.WithStats(&st)
				}
				sink = len(par.CountBy(par.FlatMap(it, strings.Fields), func(w string) string { return w }))
			}
		})
	}
}
