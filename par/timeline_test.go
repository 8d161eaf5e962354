package par_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// tiles reports how the blocks of tl fail to cover [0, n) exactly once, or
// "" if they do, and whether some steal's range lies outside every block of
// its thief and every later steal from it. (internal/pipe's TestTimelineTiles checks
// the times too; this checks that par hands the right loop down.)
func tiles(tl *par.Timeline, n int) string {
	runs := make([]int, n)
	thief := make([]int, n)
	for k, l := range tl.Lanes {
		for _, b := range l.Blocks {
			if b.Lo < 0 || b.Hi > n || b.Lo >= b.Hi {
				return fmt.Sprintf("block [%d, %d) outside [0, %d)", b.Lo, b.Hi, n)
			}
			for i := b.Lo; i < b.Hi; i++ {
				runs[i]++
				thief[i] = k
			}
		}
	}
	if i := slices.IndexFunc(runs, func(c int) bool { return c != 1 }); i >= 0 {
		return fmt.Sprintf("index %d is in %d blocks", i, runs[i])
	}
	for _, s := range tl.Steals {
		for i := s.Lo; i < s.Hi; i++ {
			if thief[i] != s.Thief && !stolenFrom(tl, s.Thief, i) {
				return fmt.Sprintf("index %d, stolen by lane %d, ran on lane %d", i, s.Thief, thief[i])
			}
		}
	}
	return ""
}

// stolenFrom reports whether a steal took index i from lane k.
func stolenFrom(tl *par.Timeline, k, i int) bool {
	for _, r := range tl.Steals {
		if r.Victim == k && r.Lo <= i && i < r.Hi {
			return true
		}
	}
	return false
}

// TestWithTimeline records an uneven loop through each kind of iterator and
// terminal operation on a pool of 4 workers.
func TestWithTimeline(t *testing.T) {
	pool, err := par.NewPool(4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const n = 1 << 12
	cost := func(i int) uint64 {
		h := uint64(i)
		for range i / 4 {
			h = mixInt(int(h))
		}
		return h
	}
	floats := make([]float64, 3*n+5) // a float Sum runs over blocks of 4096 items
	for i := range floats {
		floats[i] = float64(i)
	}
	xs := make([]int, n)
	stole := false
	for _, c := range []struct {
		name  string
		n     int
		run   func(tl *par.Timeline)
		check func() bool
	}{
		{"Map.Sum", n, func(tl *par.Timeline) {
			par.Sum(par.Map(par.Range(0, n).WithPool(pool).WithTimeline(tl), cost))
		}, nil},
		{"Slice.ForEach", n, func(tl *par.Timeline) {
			par.Slice(xs).WithPool(pool).WithTimeline(tl).ForEach(func(v int) { cost(v + n/2) })
		}, nil},
		{"Blocks", n, func(tl *par.Timeline) {
			par.Range(0, n).WithTimeline(tl).WithPool(pool).Blocks(func(lo, hi int) {
				for i := lo; i < hi; i++ {
					cost(i)
				}
			})
		}, nil},
		{"float Sum", len(floats), func(tl *par.Timeline) {
			if got, want := par.Numbers(floats).WithPool(pool).WithTimeline(tl).Sum(), float64(len(floats)*(len(floats)-1)/2); got != want {
				t.Errorf("float Sum %v, want %v", got, want)
			}
		}, nil},
		{"Collect of FromSeq", n, func(tl *par.Timeline) {
			par.FromSeq(slices.Values(xs)).WithPool(pool).WithTimeline(tl).Collect()
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			for range 20 / race.Scale {
				var tl par.Timeline
				c.run(&tl)
				if msg := tiles(&tl, c.n); msg != "" {
					t.Fatal(msg)
				}
				// A loop of a few blocks (the float Sum's 4) goes parallel
				// before its first block, and the workers may take every
				// block: then the caller has no lane. Where it has one, it
				// comes first, and a loop of many items always gives it one.
				callerAt := -1
				for i, l := range tl.Lanes {
					if l.Name == "caller" {
						callerAt = i
					}
				}
				if callerAt > 0 || callerAt < 0 && c.n == n {
					t.Fatalf("lanes %v: the caller's should come first", tl.Lanes)
				}
				if len(tl.Steals) > 0 {
					stole = true
					break
				}
			}
		})
	}
	if !stole {
		t.Error("no loop had a steal")
	}
}

// TestWithTimelineNothingRuns: Count without a Filter runs nothing and
// leaves the timeline as it was; an empty float Sum records an empty one,
// as every empty loop does; nil turns recording off.
func TestWithTimelineNothingRuns(t *testing.T) {
	var tl par.Timeline
	// A 10-item loop runs on the caller, unless its first block is slow
	// enough (a cold start of the process) for the pool to join it: one of
	// ten tries records the caller's lane alone.
	for try := 0; try < 10; try++ {
		par.Range(0, 10).WithTimeline(&tl).Sum()
		if len(tl.Lanes) == 1 {
			break
		}
	}
	if len(tl.Lanes) != 1 {
		t.Fatalf("a 10-item Sum recorded %d lanes in each of ten tries, want the caller's", len(tl.Lanes))
	}
	if par.Range(0, 10).WithTimeline(&tl).Count() != 10 || len(tl.Lanes) != 1 {
		t.Errorf("Count without a Filter changed the timeline: %v", tl.Lanes)
	}
	par.Numbers([]float64{}).WithTimeline(&tl).Sum()
	if len(tl.Lanes) != 0 {
		t.Errorf("an empty float Sum left lanes %v", tl.Lanes)
	}
	if par.Range(0, 10).WithTimeline(nil).Sum() != 45 {
		t.Error("a nil timeline broke Sum")
	}
}

func ExampleIter_WithTimeline() {
	var tl par.Timeline
	sum := par.Range(0, 1<<20).WithTimeline(&tl).Map(func(i int) int { return i % 7 }).Sum()

	items := 0
	for _, lane := range tl.Lanes {
		// lane.Name: "caller", "worker 0", ...; lane.Blocks: what it ran, when.
		for _, b := range lane.Blocks {
			items += b.Hi - b.Lo
		}
	}
	fmt.Println(sum, items, tl.Lanes[0].Name)

	// Draw it: one lane per goroutine, steals as arrows (write to a file
	// from os.Create, and open it in a browser).
	var svg bytes.Buffer
	if err := tl.WriteSVG(&svg); err != nil {
		panic(err)
	}
	fmt.Println(strings.HasPrefix(svg.String(), "<svg"))
	// Output:
	// 3145722 1048576 caller
	// true
}

// BenchmarkTimeline: the cost of recording on a cheap loop (blocks of a
// few microseconds) and of the nil test when off.
func BenchmarkTimeline(b *testing.B) {
	var tl par.Timeline
	benchSetting(b, func(r par.Ints) par.Ints { return r.WithTimeline(&tl) })
}
