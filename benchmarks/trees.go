package benchmarks

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// Recursion lists the fork-join workloads over a tree (R1, R2): count the
// nodes of a binary tree with a fork at every node and no cutoff, beside the
// plain recursion and a hand-written fan-out with a depth cutoff, README.md,
// "Recursion"; `-w recursion` runs them. W6 (fib) is the same shape with
// no memory behind it.
var Recursion = []*Workload{R1, R2}

// treeN is the nodes of R1's and R2's trees. The package's tests set it
// smaller before the trees are made (trees_test.go).
var treeN = 10_000_000

// treeCutoff is the depth below which the hand-written fan-out runs the
// plain recursion: 2^12 goroutines, as a Go programmer picks for a few
// cores.
const treeCutoff = 12

var (
	R1 = treeWorkload("R1", "tree-lopsided", "count the nodes of a random lopsided tree of 10M nodes (depth 89), a fork at every node", lopsidedTree)
	R2 = treeWorkload("R2", "tree-balanced", "count the nodes of a balanced tree of 10M nodes (depth 24), a fork at every node", balancedTree)
)

// node is a tree's node: what a recursion walks through pointers.
type node struct{ l, r *node }

// lopsidedTree and balancedTree are made once, on first use, a node at a
// time with new, as a program builds a tree.
var (
	lopsidedTree = sync.OnceValue(func() *node { return makeTree(treeN, true) })
	balancedTree = sync.OnceValue(func() *node { return makeTree(treeN, false) })
)

// makeTree returns a tree of n nodes. A node's n-1 descendants split
// evenly between its children, or, lopsided, 10-20% to one side and the
// rest to the other, the side picked at random.
func makeTree(n int, lopsided bool) *node {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	var build func(n int) *node
	build = func(n int) *node {
		if n == 0 {
			return nil
		}
		nd := new(node)
		k := (n - 1) / 2
		if lopsided {
			k = int(float64(n-1) * (0.1 + 0.1*rng.Float64()))
			if rng.IntN(2) == 0 {
				k = n - 1 - k
			}
		}
		nd.l = build(k)
		nd.r = build(n - 1 - k)
		return nd
	}
	return build(n)
}

// treeWorkload is a tree count over the tree that tree makes.
func treeWorkload(id, name, what string, tree func() *node) *Workload {
	return &Workload{
		ID:   id,
		Name: name,
		What: what,
		Impls: []Impl{
			{"seq", func() uint64 { return uint64(countSeq(tree())) }},
			{"goroutine", func() uint64 { return uint64(countCutoff(tree(), treeCutoff)) }},
			{"gopar-joinfunc", func() uint64 {
				var n int
				runtime.Default().Do(func(w *runtime.Worker) { n = countJoinFunc(w, tree()) })
				return uint64(n)
			}},
			{"gopar-parjoinfunc", func() uint64 { return uint64(countParJoinFunc(tree())) }},
			{"gopar-cutoff", func() uint64 { return uint64(countParCutoff(tree(), treeCutoff)) }},
			{"gopar-join", func() uint64 { return uint64(countJoin(tree())) }},
			{"gopar-scope", func() uint64 { return uint64(countScope(tree())) }},
			{"closures", func() uint64 { return uint64(countClosures(tree())) }},
			{"tasks", func() uint64 { return uint64(countTasks(tree())) }},
			{"tasks-lifo", func() uint64 { return uint64(countTasksLIFO(tree())) }},
		},
		Targets: []Target{
			{Impl: "gopar-joinfunc", Against: "goroutine", Limit: 1.1},
			{Impl: "gopar-parjoinfunc", Against: "goroutine", Limit: 1.1},
			{Impl: "gopar-join", Against: "closures", Limit: 1},
			{Impl: "gopar-scope", Against: "seq", Limit: 3},
			{Impl: "gopar-scope", Against: "tasks", Limit: 2},
			{Impl: "gopar-scope", Against: "tasks-lifo", Limit: 1},
		},
	}
}

// countSeq is the plain recursion.
func countSeq(t *node) int {
	if t == nil {
		return 0
	}
	return 1 + countSeq(t.l) + countSeq(t.r)
}

// countCutoff forks with a goroutine and a WaitGroup above depth cutoff,
// and runs the plain recursion below it.
func countCutoff(t *node, cutoff int) int {
	if t == nil {
		return 0
	}
	if cutoff == 0 {
		return countSeq(t)
	}
	var a int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a = countCutoff(t.l, cutoff-1)
	}()
	b := countCutoff(t.r, cutoff-1)
	wg.Wait()
	return 1 + a + b
}

// countJoinFunc forks with runtime.JoinFunc at every node, the worker
// passed down.
func countJoinFunc(w *runtime.Worker, t *node) int {
	if t == nil {
		return 0
	}
	a, b := runtime.JoinFunc(w, countJoinFunc, t.l, t.r)
	return 1 + a + b
}

// countParJoinFunc forks with par.JoinFunc at every node.
func countParJoinFunc(t *node) int {
	if t == nil {
		return 0
	}
	a, b := par.JoinFunc(countParJoinFunc, t.l, t.r)
	return 1 + a + b
}

// countParCutoff forks with par.JoinFunc above depth cutoff, as a user
// who tunes adds.
func countParCutoff(t *node, cutoff int) int {
	if t == nil {
		return 0
	}
	if cutoff == 0 {
		return countSeq(t)
	}
	type at struct {
		t *node
		d int
	}
	a, b := par.JoinFunc(func(x at) int { return countParCutoff(x.t, x.d) }, at{t.l, cutoff - 1}, at{t.r, cutoff - 1})
	return 1 + a + b
}

// countJoin forks with par.Join at every node.
func countJoin(t *node) int {
	if t == nil {
		return 0
	}
	var a, b int
	par.Join(func() { a = countJoin(t.l) }, func() { b = countJoin(t.r) })
	return 1 + a + b
}

// countClosures is countJoin run in order: each node's two calls go
// through closures that escape, as Join's do, and run one after the other.
// It is what the closures cost before anything runs in parallel: the floor
// for gopar-join on one core.
func countClosures(t *node) int {
	if t == nil {
		return 0
	}
	var a, b int
	inOrder(func() { a = countClosures(t.l) }, func() { b = countClosures(t.r) })
	return 1 + a + b
}

// countTasks is countScope run in order: a closure for every left subtree,
// which escapes as a Scope task's does, called at once. It is the floor for
// gopar-scope on one core.
func countTasks(t *node) int {
	var n int64
	var walk func(t *node)
	walk = func(t *node) {
		k := int64(0)
		for ; t != nil; t = t.r {
			k++
			if l := t.l; l != nil {
				inOrder(func() { walk(l) }, nop)
			}
		}
		n += k
	}
	walk(t)
	return int(n)
}

// countTasksLIFO is countScope run on one goroutine in the order a Scope's
// worker runs its own tasks: each closure is pushed on a stack as it is
// started, and once a task returns the newest one runs next. Its right
// spine is walked before any left subtree, as gopar-scope walks it, where
// countTasks walks each left subtree as it meets it. It is the floor for
// gopar-scope on one core with the Scope's order.
func countTasksLIFO(t *node) int {
	var n int64
	var stack []func()
	var walk func(t *node)
	walk = func(t *node) {
		k := int64(0)
		for ; t != nil; t = t.r {
			k++
			if l := t.l; l != nil {
				stack = append(stack, func() { walk(l) })
			}
		}
		n += k
	}
	walk(t)
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack[len(stack)-1] = nil
		stack = stack[:len(stack)-1]
		f()
	}
	return int(n)
}

// inOrder calls a, then b. It keeps them in escaped, so that they escape to
// the heap as a fork's closures do.
//
//go:noinline
func inOrder(a, b func()) {
	escaped[0], escaped[1] = a, b
	a()
	b()
}

var (
	escaped [2]func()
	nop     = func() {}
)

// countScope starts a Scope task for every left subtree and walks down
// the right spine itself; each task adds its count to an atomic.
func countScope(t *node) int {
	var n atomic.Int64
	var walk func(g *par.Group, t *node)
	walk = func(g *par.Group, t *node) {
		k := int64(0)
		for ; t != nil; t = t.r {
			k++
			if l := t.l; l != nil {
				g.Go(func(g *par.Group) { walk(g, l) })
			}
		}
		n.Add(k)
	}
	par.Scope(func(g *par.Group) { walk(g, t) })
	return int(n.Load())
}
