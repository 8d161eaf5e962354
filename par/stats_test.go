package par_test

import (
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

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
		"Numbers.Sum": func(st *par.Stats, tl *par.Timeline) { // a float sum runs over blocks of items
			par.Numbers(make([]float64, n)).WithPool(pool).WithStats(st).WithTimeline(tl).Sum()
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
					if p.Busy <= 0 || p.Idle < 0 || p.Busy+p.Idle > st.Elapsed {
						t.Errorf("%s busy %v, idle %v, of %v", p.Name, p.Busy, p.Idle, st.Elapsed)
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

// TestStatsBuffersAndWaits: what a stream or a sequence held and waited.
// A fast sequence whose consumer is slow fills the buffer and waits for
// room, holding at most the buffer; a slow sequence leaves its loop's
// caller idle; a stream's consumer waits for slow work; a loop over a
// range buffers nothing.
func TestStatsBuffersAndWaits(t *testing.T) {
	pool := poolForWithin(t, 4)
	n := 4096 / race.Scale
	const buffer = 64
	t.Run("fast source, slow consumer", func(t *testing.T) {
		var st par.Stats
		for v := range par.FromSeq(slices.Values(make([]int, n))).WithPool(pool).WithBuffer(buffer).WithStats(&st).Values() {
			burn(uint64(v) + 200)
		}
		t.Log("\n" + st.String())
		if st.SourceWait <= 0 || st.Buffered <= 0 || st.Buffered > buffer {
			t.Errorf("source waited %v, buffered %d items; want a wait, and 1 to %d items", st.SourceWait, st.Buffered, buffer)
		}
		if want := int64(st.Buffered) * 16; st.BufferedBytes != want { // an int in the ring, an int out
			t.Errorf("buffered %d bytes, want %d", st.BufferedBytes, want)
		}
	})
	t.Run("slow source", func(t *testing.T) {
		var st par.Stats
		slow := func(yield func(int) bool) {
			for i := range n / 4 {
				for range 10 {
					burn(uint64(i))
				}
				if !yield(i) {
					return
				}
			}
		}
		par.FromSeq(slow).WithPool(pool).WithStats(&st).ForEach(func(int) {})
		t.Log("\n" + st.String())
		idle := time.Duration(0)
		for _, p := range st.Participants {
			idle += p.Idle
		}
		if idle <= 0 || st.ConsumerWait != 0 {
			t.Errorf("participants idle %v, consumer waited %v; want idle, and no consumer", idle, st.ConsumerWait)
		}
	})
	t.Run("slow work, range stream", func(t *testing.T) {
		waited := false
		for range 3 {
			var st par.Stats
			for range par.Range(0, n).WithPool(pool).WithBuffer(256).WithStats(&st).Map(func(i int) int { return int(burn(uint64(i%3) + 100)) }).Values() {
			}
			if st.Buffered <= 0 || st.Buffered > 256 || st.BufferedBytes != int64(st.Buffered)*8 {
				t.Errorf("buffered %d items in %d bytes; want 1 to 256, 8 bytes each", st.Buffered, st.BufferedBytes)
			}
			waited = waited || st.ConsumerWait > 0
		}
		if !waited {
			t.Errorf("the consumer never waited for slow work")
		}
	})
	t.Run("unordered", func(t *testing.T) {
		var st par.Stats
		for v := range par.Range(0, 256).WithStats(&st).Blocking(4).Unordered().Map(func(i int) int { return i }).Values() {
			burn(uint64(v%3) + 200)
		}
		if st.Buffered <= 0 || st.Buffered > 256 {
			t.Errorf("buffered %d items; want 1 to 256", st.Buffered)
		}
	})
	t.Run("range", func(t *testing.T) {
		var st par.Stats
		par.Range(0, n).WithPool(pool).WithStats(&st).ForEach(func(i int) { burn(uint64(i % 3)) })
		if st.Buffered != 0 || st.SourceWait != 0 || st.ConsumerWait != 0 {
			t.Errorf("a range loop buffered %d items, waited %v and %v", st.Buffered, st.SourceWait, st.ConsumerWait)
		}
	})
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
