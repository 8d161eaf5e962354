// Command procs changes GOMAXPROCS in one process, as go test -cpu 1,2,4
// does, and at each setting times the sum of mix over 2^24 items with
// gopar (par.Sum(par.Map(par.Range(0, n), mix)), on the default pool,
// which follows GOMAXPROCS) and with the static fan-out over GOMAXPROCS
// goroutines, alternated, with a plain loop as the trust check. It prints
// per setting the default pool's size, the medians, gopar's time over
// static's (the bar: at most 1.3x after GOMAXPROCS went from 1 to 2) and
// each form's speedup over the loop.
//
//	go run ./cmd/procs                 # GOMAXPROCS 1, 2, and 4 if the machine has 4 cores
//	go run ./cmd/procs -procs 2,1,2 -reps 9
//
// Settings above the machine's cores are skipped unless -over is given.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gopar-dev/gopar/benchmarks"
	"github.com/gopar-dev/gopar/par"
)

func main() {
	var (
		list = flag.String("procs", "1,2,4", "GOMAXPROCS settings, in order")
		reps = flag.Int("reps", 7, "runs of each form per setting")
		n    = flag.Int("n", 1<<24, "items per run")
		over = flag.Bool("over", false, "run settings above the machine's cores too")
	)
	flag.Parse()
	gopar, static := benchmarks.SumForms[0], benchmarks.SumForms[1]
	want := benchmarks.SeqSum(*n)
	fmt.Printf("%d items, %d runs of each form per setting, %d cores\n", *n, *reps, runtime.NumCPU())
	fmt.Printf("%10s %7s %11s %11s %11s %12s %10s %10s\n", "GOMAXPROCS", "workers", "seq", "static", "gopar", "gopar/static", "static/seq", "gopar/seq")
	for _, s := range strings.Split(*list, ",") {
		p, err := strconv.Atoi(s)
		if err != nil || p < 1 {
			fmt.Fprintf(os.Stderr, "procs: bad setting %q\n", s)
			os.Exit(2)
		}
		if p > runtime.NumCPU() && !*over {
			fmt.Printf("%10d skipped: more than the %d cores (-over runs it)\n", p, runtime.NumCPU())
			continue
		}
		runtime.GOMAXPROCS(p)
		gopar.Sum(*n) // the first operation after the change, on the pool it finds
		var ts [3][]time.Duration
		for range *reps {
			for i, f := range []func(int) uint64{benchmarks.SeqSum, static.Sum, gopar.Sum} {
				t0 := time.Now()
				if got := f(*n); got != want {
					panic(fmt.Sprintf("form %d: sum %d, want %d", i, got, want))
				}
				ts[i] = append(ts[i], time.Since(t0))
			}
		}
		seq, st, gp := median(ts[0]), median(ts[1]), median(ts[2])
		fmt.Printf("%10d %7d %11v %11v %11v %12.2f %10.2f %10.2f\n", p, par.DefaultPool().Workers(),
			seq.Round(time.Microsecond), st.Round(time.Microsecond), gp.Round(time.Microsecond),
			float64(gp)/float64(st), float64(seq)/float64(st), float64(seq)/float64(gp))
	}
}

func median(xs []time.Duration) time.Duration {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
