// Command itemstarts records when each item of a few-coarse-items loop (W10)
// starts and ends, for gopar and for a goroutine per item, so that a
// loss on W10 can be placed: in the items' start (a wake-up), in the items
// themselves, or after the last one ends (the caller's wake-up). It runs n
// items of about 20 ms of CPU each, alternating the two forms call by call,
// and prints for each the median and 90th percentile over the calls of:
//
//	call        the whole call
//	last start  from the call to the start of its latest-starting item
//	item        one item's own time (median over every item of every call)
//	tail        from the end of the call's last item to the call's return
//
// The items are W10's own (benchmarks.CoarseItem). Run it as W10 runs:
//
//	go build -o /tmp/itemstarts ./cmd/itemstarts
//	GOMAXPROCS=16 /tmp/itemstarts -n 16
//	GOMAXPROCS=16 /tmp/itemstarts -n 32
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/benchmarks"
	"github.com/gopar-dev/gopar/par"
)

var sink uint64

// form is one way to run the n items.
type form struct {
	name string
	run  func(n int, item func(int) uint64) uint64
}

var forms = []form{
	{"goroutine", func(n int, item func(int) uint64) uint64 {
		out := make([]uint64, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { out[i] = item(i) })
		}
		wg.Wait()
		var s uint64
		for _, v := range out {
			s += v
		}
		return s
	}},
	{"gopar", func(n int, item func(int) uint64) uint64 {
		return par.Sum(par.Map(par.Range(0, n), item))
	}},
}

// record is what one form's calls measured.
type record struct {
	call, lastStart, item, tail []time.Duration
}

// once runs one call of f over n items and adds what it measured to rec.
func (rec *record) once(f form, n int) {
	starts := make([]time.Duration, n)
	ends := make([]time.Duration, n)
	t0 := time.Now()
	sink += f.run(n, func(i int) uint64 {
		starts[i] = time.Since(t0)
		v := benchmarks.CoarseItem(i)
		ends[i] = time.Since(t0)
		return v
	})
	call := time.Since(t0)
	rec.call = append(rec.call, call)
	rec.lastStart = append(rec.lastStart, slices.Max(starts))
	rec.tail = append(rec.tail, call-slices.Max(ends))
	for i := range n {
		rec.item = append(rec.item, ends[i]-starts[i])
	}
}

// quantiles formats the median and 90th percentile of ds.
func quantiles(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	q := func(p float64) time.Duration { return s[int(p*float64(len(s)-1))] }
	return fmt.Sprintf("%9v (p90 %9v)", q(0.5).Round(time.Microsecond), q(0.9).Round(time.Microsecond))
}

func main() {
	n := flag.Int("n", runtime.GOMAXPROCS(0), "items per call")
	calls := flag.Int("calls", 40, "calls of each form, alternated")
	flag.Parse()
	if *n < 1 || *calls < 1 {
		fmt.Fprintln(os.Stderr, "itemstarts: -n and -calls must be at least 1")
		os.Exit(2)
	}
	recs := make([]record, len(forms))
	for k := range forms { // a warm-up call of each: the pool's workers start
		var discard record
		discard.once(forms[k], *n)
	}
	for c := range *calls {
		for k := range forms {
			k := (k + c) % len(forms) // A B, then B A: neither always goes first
			recs[k].once(forms[k], *n)
		}
	}
	fmt.Printf("%d items of about 20 ms, GOMAXPROCS=%d, %d calls of each form\n\n", *n, runtime.GOMAXPROCS(0), *calls)
	fmt.Printf("%-10s %-26s %-26s %-26s %s\n", "form", "call", "last start", "item", "tail")
	for k, f := range forms {
		r := &recs[k]
		fmt.Printf("%-10s %s %s %s %s\n", f.name, quantiles(r.call), quantiles(r.lastStart), quantiles(r.item), quantiles(r.tail))
	}
}
