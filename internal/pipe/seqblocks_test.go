package pipe

import (
	"fmt"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// stepTaker is a seqTaker for a test on one goroutine: the first n items
// have arrived, and a wait brings one more, up to total, so that no call
// of seqBlocks ever waits.
type stepTaker struct{ n, total int }

func (t *stepTaker) arrived() int { return t.n }
func (t *stepTaker) wait(int, <-chan struct{}) {
	t.n = min(t.n+1, t.total)
}
func (t *stepTaker) over(n int) bool   { return n >= t.total }
func (t *stepTaker) handed(int)        {}
func (t *stepTaker) release(int)       {}
func (t *stepTaker) stop() (int, bool) { return t.n, true }
func (t *stepTaker) raise()            {}
func (t *stepTaker) String() string    { return fmt.Sprintf("%d/%d", t.n, t.total) }
func noCut(int) bool                   { return false }
func cutAt(c int) func(int) bool       { return func(at int) bool { return at >= c } }
func seqChunks(take int) func(int) int { return func(int) int { return take } }
func randomTakes(r *rand.Rand) func(int) int {
	return func(int) int { return 1 + r.IntN(8) }
}

// modelSeqBlocks runs participants over a seqBlocks on one goroutine, in
// the order pick gives, until every one has left: a participant with a
// chunk finishes it, one without takes the next. On the pool (reserve), a
// helper that leaves comes back, as an offer brings it, while the loop
// still has a participant and wanted says a newcomer would find a chunk;
// pick chooses among those too. It checks each chunk and returns how
// often each position was handed out and each participant's chunks.
func modelSeqBlocks(t *testing.T, s *seqBlocks, total int, take func(k int) int, pick func(live []int) int) ([]int, [][][2]int) {
	t.Helper()
	parts := len(s.parts)
	counts := make([]int, total)
	chunks := make([][][2]int, parts)
	holding := make([]bool, parts)
	live := make([]int, parts)
	for k := range live {
		live[k] = k
	}
	var away []int // helpers that left
	for steps := 0; len(live) > 0; steps++ {
		if steps > 100*(total+parts) {
			t.Fatalf("no end after %d steps", steps)
		}
		movers := live
		if len(away) > 0 && s.wanted() {
			movers = append(slices.Clone(live), away...)
		}
		i := pick(movers)
		if i >= len(live) { // a helper comes back
			k := movers[i]
			away = slices.DeleteFunc(away, func(j int) bool { return j == k })
			live = append(live, k)
			i = len(live) - 1
		}
		k := live[i]
		if holding[k] {
			holding[k] = false
			s.finished(k)
			continue
		}
		n := take(k)
		lo, hi, ok, _ := s.block(k, n, nil)
		if !ok {
			s.finished(k)
			live = append(live[:i], live[i+1:]...)
			if s.reserve && k > 0 {
				away = append(away, k)
			}
			continue
		}
		if lo < 0 || hi > total || hi <= lo || hi-lo > n {
			t.Fatalf("participant %d took [%d, %d) of %d items, asking for %d", k, lo, hi, total, n)
		}
		if s.stopped(lo) {
			t.Fatalf("participant %d took [%d, %d), which starts where the loop needs no item", k, lo, hi)
		}
		for p := lo; p < hi; p++ {
			counts[p]++
		}
		chunks[k] = append(chunks[k], [2]int{lo, hi})
		holding[k] = true
	}
	return counts, chunks
}

// runsOf counts the runs of a participant's chunks: a run ends where the
// next chunk does not start at its end.
func runsOf(chunks [][2]int) int {
	runs := 0
	for i, c := range chunks {
		if i == 0 || chunks[i-1][1] != c[0] {
			runs++
		}
	}
	return runs
}

// Each position the loop needs is handed out exactly once, to one
// participant, whatever the order in which the participants take and
// finish; none past a cut starts a chunk.
func TestSeqBlocksModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 2000 {
		total := r.IntN(300)
		parts := 1 + r.IntN(5)
		cut := math.MaxInt
		if r.IntN(3) == 0 {
			cut = r.IntN(total + 1)
		}
		stopped := noCut
		if cut < math.MaxInt {
			stopped = cutAt(cut)
		}
		reserve := r.IntN(4) != 0
		src := &stepTaker{n: r.IntN(total + 1), total: total}
		s := newSeqBlocks(src, 1<<20, 1<<20, parts, reserve, stopped)
		counts, chunks := modelSeqBlocks(t, s, total, randomTakes(r), func(live []int) int { return r.IntN(len(live)) })
		for p, c := range counts {
			if want := 1; p >= cut {
				want = c // a chunk that starts below the cut may run past it
				if c > 1 {
					t.Fatalf("round %d: position %d, past the cut %d, was handed out %d times", round, p, cut, c)
				}
			} else if c != want {
				t.Fatalf("round %d (%d items, %d participants, reserve %v): position %d was handed out %d times", round, total, parts, reserve, p, c)
			}
		}
		if parts == 1 && runsOf(chunks[0]) > 1 {
			t.Fatalf("round %d: one participant's chunks make %d runs: %v", round, runsOf(chunks[0]), chunks[0])
		}
	}
}

// On the pool, a participant's chunks stay contiguous until another
// steals from it: with two participants taking in turn over items that
// have all arrived, the seq runs as a few long runs, where a take from the
// front (Blocking) alternates the chunks between them.
func TestSeqBlocksReservationsKeepRuns(t *testing.T) {
	const total = 1 << 14
	alternate := 0
	roundRobin := func(live []int) int { alternate++; return alternate % len(live) }
	for _, reserve := range []bool{true, false} {
		src := &stepTaker{n: total, total: total}
		s := newSeqBlocks(src, 1<<20, 1<<20, 2, reserve, noCut)
		counts, chunks := modelSeqBlocks(t, s, total, seqChunks(16), roundRobin)
		for p, c := range counts {
			if c != 1 {
				t.Fatalf("reserve %v: position %d handed out %d times", reserve, p, c)
			}
		}
		runs := runsOf(chunks[0]) + runsOf(chunks[1])
		switch {
		case reserve && runs > 2*14:
			t.Errorf("reservations: %d runs over %d items in chunks of 16, want at most one a steal (2 log2(items))", runs, total)
		case !reserve && runs < total/16/2:
			t.Errorf("from the front: %d runs, want the chunks to alternate", runs)
		}
	}
}

// FuzzSeqBlocks runs the model of TestSeqBlocksModel on schedules the
// fuzzer chooses: which participant moves at each step, and how much it
// asks for.
func FuzzSeqBlocks(f *testing.F) {
	f.Add(uint16(100), uint8(3), uint16(40), uint16(0xffff), true, []byte{0, 1, 2, 1, 0, 2})
	f.Add(uint16(7), uint8(2), uint16(0), uint16(3), false, []byte{1, 1, 0})
	f.Fuzz(func(t *testing.T, total16 uint16, parts8 uint8, arrived16, cut16 uint16, reserve bool, schedule []byte) {
		total := int(total16 % 512)
		parts := 1 + int(parts8%6)
		stopped := noCut
		cut := math.MaxInt
		if cut16 != 0xffff {
			cut = int(cut16) % (total + 1)
			stopped = cutAt(cut)
		}
		src := &stepTaker{n: int(arrived16) % (total + 1), total: total}
		s := newSeqBlocks(src, 1<<20, 1<<20, parts, reserve, stopped)
		step := 0
		next := func() int {
			step++
			if len(schedule) == 0 {
				return step
			}
			return int(schedule[step%len(schedule)]) + step/len(schedule)
		}
		take := func(int) int { return 1 + next()%9 }
		counts, _ := modelSeqBlocks(t, s, total, take, func(live []int) int { return next() % len(live) })
		for p, c := range counts {
			if (p < cut && c != 1) || c > 1 {
				t.Fatalf("position %d (cut %d) was handed out %d times", p, cut, c)
			}
		}
	})
}

// Concurrently, over a real feeder: participants on goroutines of their
// own (more than the cores) take chunks, read their items from the ring
// and finish them, while the feeder pulls the seq; every item is read
// exactly once and holds its own position, with a reach of 2 that makes
// takes wait for room.
func TestSeqBlocksConcurrentExactlyOnce(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	for round := range 20 {
		total := 1 + round*997%20000
		parts := 2 + round%7
		reserve := round%3 != 0
		w := &seqStore[int]{seq: func(yield func(int) bool) {
			for i := range total {
				if !yield(i) {
					return
				}
			}
		}}
		ring := 1 << 10
		taker := w.open(seqRing{slots: ring, span: ring, least: 1}, nil)
		s := newSeqBlocks(taker, ring, 2, parts, reserve, noCut)
		seen := make([]atomic.Int32, total)
		var wg sync.WaitGroup
		for k := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer s.finished(k)
				for {
					lo, hi, ok, _ := s.block(k, 1+(k*7)%64, nil)
					if !ok {
						// A helper that left comes back while a
						// newcomer would find a chunk.
						if reserve && k > 0 && s.wanted() {
							s.finished(k)
							continue
						}
						return
					}
					for p := lo; p < hi; p++ {
						if v := w.at(p); v != p {
							t.Errorf("position %d holds %d", p, v)
						}
						seen[p].Add(1)
					}
					s.finished(k)
				}
			}()
		}
		wg.Wait()
		if n, ended := taker.stop(); n != total || !ended {
			t.Fatalf("round %d: the feeder pulled %d of %d items, ended %v", round, n, total, ended)
		}
		for p := range seen {
			if c := seen[p].Load(); c != 1 {
				t.Fatalf("round %d (%d items, %d participants, reserve %v): item %d was read %d times", round, total, parts, reserve, p, c)
			}
		}
	}
}

// TestChunkSizeKeptPerSlot: a helper of the pool sequence driver that
// comes back into a slot goes on at the chunk size the slot's last
// participant left with, not at the least again; a slot nobody held
// starts at the least.
func TestChunkSizeKeptPerSlot(t *testing.T) {
	p := &poolSeq{least: 2, most: 64, target: seqChunkTarget, sizes: make([]doubling, 3)}
	c := p.sizeOf(1)
	if c.size != 2 {
		t.Fatalf("a new slot starts at %d items, want the least, 2", c.size)
	}
	for range 4 {
		c.next(true, 0) // fast chunks: the size doubles
	}
	p.keep(1, c)
	if got := p.sizeOf(1).size; got != 32 {
		t.Fatalf("the slot's next participant starts at %d items, want 32", got)
	}
	if got := p.sizeOf(2).size; got != 2 {
		t.Fatalf("another slot starts at %d items, want 2", got)
	}
}
