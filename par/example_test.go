package par_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/gopar-dev/gopar/par"
)

func ExampleRange() {
	// The sum of the squares of 0..999.
	fmt.Println(par.Range(0, 1000).Map(func(i int) int { return i * i }).Sum())
	// Output: 332833500
}

func ExampleSlice() {
	words := []string{"par", "allel", "ism"}
	lengths := par.Map(par.Slice(words), func(w string) int { return len(w) })
	fmt.Println(par.Sum(lengths))
	// Output: 11
}

func ExampleNumbers() {
	fmt.Println(par.Numbers([]float64{0.5, 1.5, 2}).Sum())
	// Output: 4
}

func ExampleMap() {
	// par.Map may change the item type; it accepts every iterator.
	names := par.Map(par.Range(1, 4), func(i int) string { return strings.Repeat("*", i) }).Collect()
	fmt.Println(names)
	// Output: [* ** ***]
}

func ExampleIter_Map() {
	doubled := par.Slice([]int{1, 2, 3}).Map(func(x int) int { return 2 * x }).Collect()
	fmt.Println(doubled)
	// Output: [2 4 6]
}

func ExampleIter_Filter() {
	even := par.Range(0, 10).Filter(func(i int) bool { return i%2 == 0 }).Collect()
	fmt.Println(even)
	// Output: [0 2 4 6 8]
}

func ExampleIter_ForEach() {
	var hits atomic.Int64
	par.Range(0, 100_000).ForEach(func(i int) {
		if i%1000 == 0 {
			hits.Add(1)
		}
	})
	fmt.Println(hits.Load())
	// Output: 100
}

func ExampleIter_Reduce() {
	// Partial results are combined in index order, so an associative but
	// not commutative operation, such as concatenation, is fine.
	letters := strings.Split("abcdefghijklmnopqrstuvwxyz", "")
	word := par.Slice(letters).Reduce(func() string { return "" }, func(a, b string) string { return a + b })
	fmt.Println(word)
	// Output: abcdefghijklmnopqrstuvwxyz
}

func ExampleIter_Count() {
	isPrime := func(n int) bool {
		if n < 2 {
			return false
		}
		for d := 2; d*d <= n; d++ {
			if n%d == 0 {
				return false
			}
		}
		return true
	}
	fmt.Println(par.Range(0, 100_000).Filter(isPrime).Count())
	// Output: 9592
}

func ExampleIter_Collect() {
	fmt.Println(par.Range(5, 10).Collect())
	// Output: [5 6 7 8 9]
}

func ExampleNums_Sum() {
	fmt.Println(par.Range(1, 101).Sum())
	// Output: 5050
}

func ExampleSum() {
	cubes := par.Map(par.Range(1, 4), func(i int) int64 { return int64(i * i * i) })
	fmt.Println(par.Sum(cubes))
	// Output: 36
}

func ExampleJoin() {
	var left, right int
	par.Join(
		func() { left = par.Range(0, 1000).Sum() },
		func() { right = par.Range(1000, 2000).Sum() },
	)
	fmt.Println(left + right)
	// Output: 1999000
}

// fib forks at every level; par.JoinFunc costs a few nanoseconds over two
// plain calls while the pool is busy.
func fib(n int) int {
	if n < 2 {
		return n
	}
	x, y := par.JoinFunc(fib, n-1, n-2)
	return x + y
}

func ExampleJoinFunc() {
	fmt.Println(fib(30))
	// Output: 832040
}

func ExampleInts_Blocks() {
	out := make([]int, 10)
	par.Range(0, len(out)).Blocks(func(lo, hi int) {
		// A hand-written loop over a contiguous sub-range: no call per item.
		for i := lo; i < hi; i++ {
			out[i] = i * i
		}
	})
	fmt.Println(out)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}

func ExampleReduceBlocks() {
	sum := par.ReduceBlocks(par.Range(0, 1_000_000), func(lo, hi int) int {
		s := 0
		for i := lo; i < hi; i++ {
			s += i
		}
		return s
	}, func(a, b int) int { return a + b })
	fmt.Println(sum)
	// Output: 499999500000
}

func ExampleChunks() {
	xs := []int{1, 2, 3, 4, 5, 6, 7}
	sums := par.Map(par.Chunks(xs, 3), func(chunk []int) int {
		s := 0
		for _, x := range chunk {
			s += x
		}
		return s
	}).Collect()
	fmt.Println(sums)
	// Output: [6 15 7]
}

func ExampleIter_WithPool() {
	pool, err := par.NewPool(2)
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	fmt.Println(par.Range(0, 10).WithPool(pool).Sum())
	// Output: 45
}

func ExampleNewPool() {
	pool, err := par.NewPool(2)
	if err != nil {
		panic(err)
	}
	fmt.Println(pool.Workers(), "workers")
	pool.Close()

	defer func() { fmt.Println("after Close:", recover() == par.ErrClosed) }()
	par.Range(0, 10).WithPool(pool).Sum()
	// Output:
	// 2 workers
	// after Close: true
}

func ExampleDefaultPool() {
	fmt.Println(par.DefaultPool().Workers() > 0)
	// Output: true
}

func Example_panic() {
	defer func() {
		p := recover().(*par.Panic)
		fmt.Println("recovered:", p.Value)
	}()
	par.Range(0, 100).ForEach(func(i int) {
		if i == 42 {
			panic(errors.New("item 42 is bad"))
		}
	})
	// Output: recovered: item 42 is bad
}

func ExampleIter_WithBlockSize() {
	// Items whose cost varies by orders of magnitude: run at most 4 at a
	// time, so an idle worker can always take over the rest.
	work := func(i int) int { return i % 3 }
	fmt.Println(par.Range(0, 1000).WithBlockSize(0, 4).Map(work).Sum())
	// Output: 999
}

func ExampleNums_Map() {
	// Map on a numeric iterator keeps Sum available.
	fmt.Println(par.Range(1, 4).Map(func(i int) int { return i * 10 }).Sum())
	// Output: 60
}

func ExampleNums_Filter() {
	fmt.Println(par.Range(0, 10).Filter(func(i int) bool { return i%2 == 1 }).Sum())
	// Output: 25
}

func ExampleIter_Len() {
	it := par.Range(0, 100).Filter(func(i int) bool { return i < 10 })
	fmt.Println(it.Len(), it.Count()) // Len is an upper bound once a Filter is present
	// Output: 100 10
}

func ExampleInts_Blocks_settings() {
	pool, err := par.NewPool(2)
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	squares := make([]int, 8)
	par.Range(0, len(squares)).WithPool(pool).WithBlockSize(0, 4).Blocks(func(lo, hi int) {
		for i := lo; i < hi; i++ {
			squares[i] = i * i
		}
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49]
}

func ExampleReduceBlocks_settings() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	longest := par.ReduceBlocks(par.Range(0, 1000).WithContext(ctx).WithBlockSize(0, 100),
		func(lo, hi int) int { return hi - lo },
		func(a, b int) int { return max(a, b) })
	fmt.Println(longest <= 100, ctx.Err())
	// Output: true <nil>
}

func ExampleIter_WithContext() {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("found what we were looking for")
	err := par.Range(0, 1_000_000).WithContext(ctx).TryForEach(func(i int) error {
		if i == 1234 {
			cancel(stop) // for example, another goroutine gave up
		}
		return nil
	})
	fmt.Println(err)
	// Output: found what we were looking for
}
