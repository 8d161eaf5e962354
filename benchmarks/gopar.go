package benchmarks

import (
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// The gopar variants of each workload, added to the lists after the baselines.
//
// gopar-item uses the per-item API, par.Sum(par.Map(par.Range(0, n), item)); the
// item goes through a func value, so its floor is static-fn. gopar-block uses the
// block API, par.ReduceBlocks, with the same hand-written loop as static, so its
// floor is static (and, on W0, seq). gopar-join is recursive fib with par.Join at
// every level; gopar-worker is the same with runtime.Worker.Join, which passes the
// worker down instead of entering the pool at every level; gopar-joinfunc uses
// runtime.JoinFunc, which shares a fork only while a worker is idle;
// gopar-parjoinfunc uses par.JoinFunc, which needs no worker.
func init() {
	add("W0", Impl{"gopar-item", func() uint64 {
		var s uint64
		for range w0Times {
			s += goparItem(w0Loop.n, w0Loop.item)
		}
		return s
	}}, Impl{"gopar-block", func() uint64 {
		var s uint64
		for range w0Times {
			s += par.ReduceBlocks(par.Range(0, w0Loop.n), w0Loop.block, add64)
		}
		return s
	}})
	// The loops W1-W5: the two gopar forms, and Rayon's splitting on gopar's
	// pool (for docs/steal-fraction.md; not a gopar API).
	for _, w := range []struct {
		id string
		l  loop
	}{{"W1", w1Loop}, {"W2", w2Loop}, {"W3", w3Loop}, {"W4", w4Loop}, {"W5", w5Loop}} {
		add(w.id,
			Impl{"gopar-item", func() uint64 { return goparItem(w.l.n, w.l.item) }},
			Impl{"gopar-block", func() uint64 { return par.ReduceBlocks(par.Range(0, w.l.n), w.l.block, add64) }},
			Impl{"rayon-split", func() uint64 { return rayonSplit(w.l.n, w.l.block) }},
		)
	}
	add("W6", Impl{"gopar-join", func() uint64 { return fibJoin(fibN) }},
		Impl{"gopar-worker", func() uint64 {
			var r uint64
			runtime.Default().Do(func(w *runtime.Worker) { r = fibWorker(w, fibN) })
			return r
		}},
		Impl{"gopar-joinfunc", func() uint64 {
			var r uint64
			runtime.Default().Do(func(w *runtime.Worker) { r = fibJoinFunc(w, fibN) })
			return r
		}},
		Impl{"gopar-parjoinfunc", func() uint64 { return fibParJoinFunc(fibN) }})
	add("W7", Impl{"gopar-item", func() uint64 { return goparItem(w7Outer64, goparInner) }},
		Impl{"gopar-block", func() uint64 { return goparItem(w7Outer64, goparInnerBlock) }})
	add("W8", Impl{"gopar-item", func() uint64 {
		return callers(func() uint64 { return goparItem(w8Loop.n, w8Loop.item) })
	}}, Impl{"gopar-block", func() uint64 {
		return callers(func() uint64 { return par.ReduceBlocks(par.Range(0, w8Loop.n), w8Loop.block, add64) })
	}})
}

// goparItem is the per-item form: the sum of item(i) over [0, n).
func goparItem(n int, item func(int) uint64) uint64 {
	return par.Sum(par.Map(par.Range(0, n), item))
}

// goparInner is W7's outer item o: an inner parallel sum over its 2^18 indexes,
// started from inside the outer parallel sum.
func goparInner(o int) uint64 {
	return par.Sum(par.Map(par.Range(o<<w7InnerLog, (o+1)<<w7InnerLog), mixInt))
}

// goparInnerBlock is goparInner with the block API for the inner sum.
func goparInnerBlock(o int) uint64 {
	return par.ReduceBlocks(par.Range(o<<w7InnerLog, (o+1)<<w7InnerLog), mixBlock, add64)
}

// fibWorker forks with runtime.Worker.Join at every level.
func fibWorker(w *runtime.Worker, n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	var a, b uint64
	w.Join(
		func(w *runtime.Worker) { a = fibWorker(w, n-1) },
		func(w *runtime.Worker) { b = fibWorker(w, n-2) },
	)
	return a + b
}

// fibJoinFunc forks with runtime.JoinFunc at every level.
func fibJoinFunc(w *runtime.Worker, n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	a, b := runtime.JoinFunc(w, fibJoinFunc, n-1, n-2)
	return a + b
}

// fibParJoinFunc forks with par.JoinFunc at every level.
func fibParJoinFunc(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	a, b := par.JoinFunc(fibParJoinFunc, n-1, n-2)
	return a + b
}

// fibJoin forks with par.Join at every level.
func fibJoin(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	var a, b uint64
	par.Join(
		func() { a = fibJoin(n - 1) },
		func() { b = fibJoin(n - 2) },
	)
	return a + b
}
