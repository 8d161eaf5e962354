package partition

import (
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"testing"
)

// FuzzLoop runs a Loop over [lo, lo+n) three ways for each input:
//
//   - a deterministic scheduler, driven by seed, interleaves the Next and
//     Leave calls of procs participants in one goroutine; at step cutStep,
//     if nonzero, it cuts the loop at a random index (or cancels it, for odd
//     steps), and then checks that no later Next hands out anything at or
//     above the cut; first > 0 makes it a growing loop;
//   - the same parameters with real goroutines;
//   - owners and thieves of ranges interleaved between their atomic steps
//     (interleaved), which makes stale thieves.
func FuzzLoop(f *testing.F) {
	f.Add(int64(0), uint16(100), uint8(4), uint8(4), uint8(3), uint64(1), uint16(0), uint8(0))
	f.Add(int64(-5), uint16(7), uint8(1), uint8(3), uint8(1), uint64(2), uint16(0), uint8(2))
	f.Add(int64(1)<<62, uint16(1000), uint8(8), uint8(2), uint8(64), uint64(3), uint16(5), uint8(0))
	f.Add(int64(-300), uint16(900), uint8(3), uint8(5), uint8(4), uint64(4), uint16(12), uint8(9))
	f.Fuzz(func(t *testing.T, lo int64, n uint16, parts, procs, grain uint8, seed uint64, cutStep uint16, first uint8) {
		if lo > 0 && int64(uint64(1)<<63-1)-lo < int64(n) {
			return // hi would overflow
		}
		// Deterministic interleaving of participants' calls.
		rng := rand.New(rand.NewPCG(seed, uint64(lo)))
		var l *Loop
		if first > 0 {
			l = NewGrowingLoop(int(lo), int(lo)+int(n), int(parts), int(first))
		} else {
			l = NewLoop(int(lo), int(lo)+int(n), int(parts))
		}
		g := newLedger(int(lo), int(n))
		ps := make([]*Participant, 0, procs)
		for range max(procs, 1) {
			p := new(Participant)
			if l.Enter(p) {
				ps = append(ps, p)
			}
		}
		lasts, cut := 0, math.MaxInt
		for step := 1; len(ps) > 0; step++ {
			if step == int(cutStep) {
				if step%2 == 1 {
					l.Cancel()
				} else {
					l.CutAt(int(lo) + rng.IntN(int(n)+1))
				}
				cut = l.Cut()
			}
			k := rng.IntN(len(ps))
			a, b, ok := ps[k].Next(int(grain))
			if ok {
				if b > cut {
					t.Fatalf("block [%d, %d) after the cut at %d", a, b, cut)
				}
				g.mark(t, a, b)
				continue
			}
			if ps[k].Leave() {
				lasts++
			}
			ps[k] = ps[len(ps)-1]
			ps = ps[:len(ps)-1]
		}
		if !l.Done() || lasts != min(int(n), 1) {
			t.Fatalf("done %v, %d last Leaves", l.Done(), lasts)
		}
		for i := range g.cnt {
			if v := g.cnt[i].Load(); v > 1 || v == 0 && int(lo)+i < cut {
				t.Fatalf("index %d run %d times (cut at %d)", int(lo)+i, v, cut)
			}
		}

		// Real goroutines.
		defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
		cutAfter := -1
		if cutStep != 0 {
			cutAfter = int(cutStep % 64)
		}
		runLoop(t, loopRun{lo: int(lo), hi: int(lo) + int(n), parts: int(parts), procs: int(procs%16) + 1,
			first: int(first), grain: int(grain), cutAfter: cutAfter, cancel: cutStep%2 == 1, mark: true,
			yield: seed&1 == 0})

		// Half-step interleavings of ranges.
		interleaved(t, rng, int(n%512)+1, int(procs%4)+1, int(grain%32)+1)
	})
}
