package pipe

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

// triangle is a sum whose item i costs i/4 rounds of a mix, so that equal
// partitions hold unequal work and the early finishers must steal.
func triangle() Reducer[uint64] {
	return Reducer[uint64]{
		Identity: func() uint64 { return 0 },
		Fold: func(acc uint64, lo, hi int) uint64 {
			for i := lo; i < hi; i++ {
				h := uint64(i)
				for range i / 4 {
					h ^= h >> 31
					h *= 0x9E3779B97F4A7C15
				}
				acc += h
			}
			return acc
		},
		Combine: func(a, b uint64) uint64 { return a + b },
	}
}

// checkTimeline checks what every complete timeline of a loop over [lo, hi)
// must satisfy: the blocks tile the loop exactly once, each lane's blocks
// follow one another in time within the operation, and every stolen index
// is run by the thief after the steal or stolen from it in turn.
func checkTimeline(t *testing.T, tl *partition.Timeline, lo, hi int) {
	t.Helper()
	type owner struct {
		lane  int
		start time.Duration
	}
	ran := make([]owner, hi-lo)
	for i := range ran {
		ran[i].lane = -1
	}
	names := map[string]bool{}
	for k, l := range tl.Lanes {
		if names[l.Name] {
			t.Errorf("two lanes named %q", l.Name)
		}
		names[l.Name] = true
		if l.Name == "caller" && k != 0 {
			t.Errorf("the caller's lane is lane %d, not 0", k)
		}
		var prevEnd time.Duration
		for _, b := range l.Blocks {
			if b.Lo >= b.Hi || b.Lo < lo || b.Hi > hi {
				t.Fatalf("lane %s: block [%d, %d) outside the loop [%d, %d) or empty", l.Name, b.Lo, b.Hi, lo, hi)
			}
			if b.Start < prevEnd || b.End < b.Start || b.End > tl.Elapsed {
				t.Errorf("lane %s: block [%d, %d) from %v to %v, after a block that ended at %v, in an operation of %v",
					l.Name, b.Lo, b.Hi, b.Start, b.End, prevEnd, tl.Elapsed)
			}
			prevEnd = b.End
			for i := b.Lo; i < b.Hi; i++ {
				if o := ran[i-lo]; o.lane >= 0 {
					t.Fatalf("index %d ran twice: on %s and on %s", i, tl.Lanes[o.lane].Name, l.Name)
				}
				ran[i-lo] = owner{k, b.Start}
			}
		}
	}
	for i, o := range ran {
		if o.lane < 0 {
			t.Fatalf("index %d is in no block", lo+i)
		}
	}
	for _, s := range tl.Steals {
		if s.Thief == s.Victim || s.Thief < 0 || s.Victim < 0 || s.Thief >= len(tl.Lanes) || s.Victim >= len(tl.Lanes) {
			t.Fatalf("steal %+v: bad lanes (%d lanes)", s, len(tl.Lanes))
		}
		if s.Lo >= s.Hi || s.Lo < lo || s.Hi > hi {
			t.Fatalf("steal %+v outside the loop [%d, %d)", s, lo, hi)
		}
		for i := s.Lo; i < s.Hi; i++ {
			if o := ran[i-lo]; o.lane == s.Thief && o.start >= s.At {
				continue
			}
			if !slices.ContainsFunc(tl.Steals, func(r partition.Steal) bool { return r.Victim == s.Thief && r.Lo <= i && i < r.Hi }) {
				t.Fatalf("index %d, stolen by %s at %v, ran on %s at %v and was not stolen from the thief",
					i, tl.Lanes[s.Thief].Name, s.At, tl.Lanes[ran[i-lo].lane].Name, ran[i-lo].start)
			}
		}
	}
}

// TestTimelineTiles records an uneven loop on a pool of 4 workers until a
// run has steals, and checks the timeline.
func TestTimelineTiles(t *testing.T) {
	pool, err := runtime.New(4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const lo, hi = 1000, 1000 + 1<<12
	want := Run(Config{Pool: pool}, lo, hi, triangle())
	// Keep trying for a run where more than two goroutines took part, as
	// they do on a machine with more than 2 cores; one with a steal will do.
	stole := false
	for try := range 200 / race.Scale {
		var tl partition.Timeline
		if got := Run(Config{Pool: pool, Timeline: &tl}, lo, hi, triangle()); got != want {
			t.Fatalf("sum %d with a timeline, %d without", got, want)
		}
		checkTimeline(t, &tl, lo, hi)
		if len(tl.Steals) > 0 {
			stole = true
			if len(tl.Lanes) > 2 {
				t.Logf("try %d: %d lanes, %d steals", try, len(tl.Lanes), len(tl.Steals))
				return
			}
		}
	}
	if !stole {
		t.Fatal("no run had a steal")
	}
}

// TestTimelineForms records the loops that go around the driver or replace
// it: no Combine, a progress callback, a pipeline over a seq, Blocking, and
// a loop that runs on the caller alone.
func TestTimelineForms(t *testing.T) {
	pool, err := runtime.New(4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const n = 3000
	noCombine := triangle()
	noCombine.Combine = nil
	for _, c := range []struct {
		name string
		cfg  Config
		r    Reducer[uint64]
		n    int
	}{
		{"no combine", Config{Pool: pool}, noCombine, n},
		{"progress", Config{Pool: pool, Progress: func(int, int) {}}, triangle(), n},
		{"blocking", Config{Pool: pool, Blocking: 3}, triangle(), n},
		{"max block", Config{Pool: pool, MaxBlock: 7}, triangle(), n},
		// One item: a loop of a few items (2 to fewPerWorker per worker)
		// goes parallel before item 0, so only a single item is inline
		// whatever the timing.
		{"inline", Config{Pool: pool}, triangle(), 1},
		{"empty", Config{Pool: pool}, triangle(), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			tl := partition.Timeline{Lanes: []partition.Lane{{Name: "left over"}}}
			c.cfg.Timeline = &tl
			Run(c.cfg, 0, c.n, c.r)
			checkTimeline(t, &tl, 0, c.n)
			if c.n == 0 && len(tl.Lanes) != 0 {
				t.Errorf("an empty loop recorded %d lanes", len(tl.Lanes))
			}
			if c.cfg.Blocking > 0 {
				for _, l := range tl.Lanes {
					if !strings.HasPrefix(l.Name, "goroutine ") {
						t.Errorf("Blocking: a lane named %q", l.Name)
					}
				}
			}
			if c.name == "inline" && (len(tl.Lanes) != 1 || tl.Lanes[0].Name != "caller") {
				t.Errorf("a 1-item loop recorded lanes %v, want the caller's alone", tl.Lanes)
			}
		})
	}
	t.Run("seq", func(t *testing.T) {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = i
		}
		s := FromSeq(slices.Values(xs))
		var tl partition.Timeline
		cfg := s.Config
		cfg.Pool, cfg.Timeline = pool, &tl
		got := Run(cfg, s.Lo, s.Hi, Reducer[int]{
			Identity: func() int { return 0 },
			Fold: func(acc, lo, hi int) int {
				s.Each(lo, hi, func(v int) { acc += v })
				return acc
			},
			Combine: func(a, b int) int { return a + b },
		})
		if want := n * (n - 1) / 2; got != want {
			t.Fatalf("sum %d, want %d", got, want)
		}
		checkTimeline(t, &tl, 0, n)
	})
}

// TestTimelinePanic checks that a loop that panics still leaves a
// consistent, if partial, timeline.
func TestTimelinePanic(t *testing.T) {
	var tl partition.Timeline
	r := triangle()
	fold := r.Fold
	r.Fold = func(acc uint64, lo, hi int) uint64 {
		if lo <= 2500 && 2500 < hi {
			panic("boom")
		}
		return fold(acc, lo, hi)
	}
	if p := plumb.Catch(func() { Run(Config{Timeline: &tl}, 0, 3000, r) }); p == nil {
		t.Fatal("no panic")
	}
	for _, l := range tl.Lanes {
		for _, b := range l.Blocks {
			if b.Lo <= 2500 && 2500 < b.Hi {
				t.Errorf("the block that panicked, [%d, %d), was recorded", b.Lo, b.Hi)
			}
		}
	}
}

// TestWriteSVG draws a recorded timeline and a hand-made one, and checks
// that the result is well-formed XML with a rectangle per run of blocks and
// an arrow per steal.
// TestWriteSVGRecorded draws a recorded timeline: one arrow per steal,
// and every lane's name (partition's tests check the drawing itself).
func TestWriteSVGRecorded(t *testing.T) {
	pool, err := runtime.New(4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var tl partition.Timeline
	Run(Config{Pool: pool, Timeline: &tl}, 0, 1<<12, triangle())
	var buf bytes.Buffer
	if err := tl.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "marker-end"); n != len(tl.Steals) {
		t.Errorf("%d arrows for %d steals", n, len(tl.Steals))
	}
	for _, l := range tl.Lanes {
		if !strings.Contains(buf.String(), ">"+l.Name+"<") {
			t.Errorf("the lane name %q is not in the picture", l.Name)
		}
	}
}
