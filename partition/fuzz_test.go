package partition

import (
	"math/rand/v2"
	goruntime "runtime"
	"testing"
)

// FuzzLoop runs a Loop over [lo, lo+n) three ways for each input:
//
//   - a deterministic scheduler, driven by seed, interleaves the Next and
//     Leave calls of procs participants in one goroutine (Cancel at step
//     cancelAt, if nonzero);
//   - the same parameters with real goroutines;
//   - owners and thieves of ranges interleaved between their atomic steps
//     (interleaved), which makes stale thieves.
func FuzzLoop(f *testing.F) {
	f.Add(int64(0), uint16(100), uint8(4), uint8(4), uint8(3), uint64(1), uint16(0))
	f.Add(int64(-5), uint16(7), uint8(1), uint8(3), uint8(1), uint64(2), uint16(0))
	f.Add(int64(1)<<62, uint16(1000), uint8(8), uint8(2), uint8(64), uint64(3), uint16(5))
	f.Fuzz(func(t *testing.T, lo int64, n uint16, parts, procs, grain uint8, seed uint64, cancelAt uint16) {
		if lo > 0 && int64(uint64(1)<<63-1)-lo < int64(n) {
			return // hi would overflow
		}
		// Deterministic interleaving of participants' calls.
		rng := rand.New(rand.NewPCG(seed, uint64(lo)))
		l := NewLoop(int(lo), int(lo)+int(n), int(parts))
		g := newLedger(int(lo), int(n))
		ps := make([]*Participant, 0, procs)
		for range max(procs, 1) {
			p := new(Participant)
			if l.Enter(p) {
				ps = append(ps, p)
			}
		}
		lasts := 0
		for step := 1; len(ps) > 0; step++ {
			if step == int(cancelAt) {
				l.Cancel()
			}
			k := rng.IntN(len(ps))
			a, b, ok := ps[k].Next(int(grain))
			if ok {
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
			if v := g.cnt[i].Load(); v > 1 || v == 0 && !l.Cancelled() {
				t.Fatalf("index %d run %d times", int(lo)+i, v)
			}
		}

		// Real goroutines.
		defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
		cancel := -1
		if cancelAt != 0 {
			cancel = int(cancelAt % 64)
		}
		runLoop(t, loopRun{lo: int(lo), hi: int(lo) + int(n), parts: int(parts), procs: int(procs%16) + 1,
			grain: int(grain), cancelAfter: cancel, mark: true, yield: seed&1 == 0})

		// Half-step interleavings of ranges.
		interleaved(t, rng, int(n%512)+1, int(procs%4)+1, int(grain%32)+1)
	})
}
