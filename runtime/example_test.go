package runtime_test

import (
	"fmt"

	"github.com/gopar-dev/gopar/runtime"
)

func fib(w *runtime.Worker, n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	w.Join(
		func(w *runtime.Worker) { a = fib(w, n-1) },
		func(w *runtime.Worker) { b = fib(w, n-2) },
	)
	return a + b
}

func ExampleNew() {
	pool, err := runtime.New(4)
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	fmt.Println(pool.Workers())

	_, err = runtime.New(0)
	fmt.Println(err)
	// Output:
	// 4
	// gopar: a pool needs at least one worker, got 0
}

func ExamplePool_Do() {
	// Do enters the pool once; the recursion passes the worker down, so
	// every Join uses that worker's own deque.
	var r int
	runtime.Default().Do(func(w *runtime.Worker) { r = fib(w, 20) })
	fmt.Println(r)
	// Output: 6765
}

func ExampleWorker_Join() {
	var left, right string
	runtime.Default().Do(func(w *runtime.Worker) {
		w.Join(
			func(*runtime.Worker) { left = "left" },
			func(*runtime.Worker) { right = "right" },
		)
	})
	fmt.Println(left, right)
	// Output: left right
}

func ExamplePool_Scope() {
	// A scope waits for every task spawned in it, including tasks spawned
	// by tasks.
	results := make([]int, 4)
	runtime.Default().Scope(func(s runtime.Scope) {
		for i := range results {
			s.Spawn(func(s runtime.Scope) {
				s.Spawn(func(runtime.Scope) { results[i] = i * i })
			})
		}
	})
	fmt.Println(results)
	// Output: [0 1 4 9]
}

func ExamplePool_Go() {
	done := make(chan string)
	runtime.Default().Go(func(w *runtime.Worker) { done <- "ran on a worker" })
	fmt.Println(<-done)
	// Output: ran on a worker
}

// node is a binary tree; size forks at every node, JoinFunc's case.
type node struct {
	left, right *node
}

func size(w *runtime.Worker, n *node) int {
	if n == nil {
		return 0
	}
	l, r := runtime.JoinFunc(w, size, n.left, n.right)
	return 1 + l + r
}

func build(depth int) *node {
	if depth == 0 {
		return nil
	}
	return &node{build(depth - 1), build(depth - 1)}
}

func ExampleJoinFunc() {
	root := build(16)
	var n int
	runtime.Default().Do(func(w *runtime.Worker) { n = size(w, root) })
	fmt.Println(n)
	// Output: 65535
}

func ExamplePanic() {
	// A panic in a task comes back to the goroutine that waits for it as a
	// *runtime.Panic, with the task's value and stack.
	defer func() {
		r := recover()
		if p, ok := r.(*runtime.Panic); ok {
			fmt.Printf("%T: %v\n", p, p.Value)
		}
	}()
	runtime.Default().Join(
		func(*runtime.Worker) {},
		func(*runtime.Worker) { panic("task failed") },
	)
	// Output: *runtime.Panic: task failed
}

// sumTree adds up xs, forking with JoinLazy: a recursion over plain
// functions, which hold no *Worker.
func sumTree(p *runtime.Pool, xs []int) int {
	if len(xs) <= 1024 {
		s := 0
		for _, x := range xs {
			s += x
		}
		return s
	}
	var l, r int
	m := len(xs) / 2
	p.JoinLazy(func() { l = sumTree(p, xs[:m]) }, func() { r = sumTree(p, xs[m:]) })
	return l + r
}

func ExamplePool_JoinLazy() {
	xs := make([]int, 1<<20)
	for i := range xs {
		xs[i] = i
	}
	fmt.Println(sumTree(runtime.Default(), xs))
	// Output: 549755289600
}
