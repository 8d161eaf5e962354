// Command firstjoin times the first par.Join of a program, the one that meets
// a default pool whose workers have not run yet, with two halves of about
// 100 ms of CPU each, then three more joins of the same halves. On P >= 2
// cores the ideal is 100 ms each (issue 22's bar for the first: 110 ms).
// Every start is a new process, so run it several times:
//
//	go build -o /tmp/firstjoin ./cmd/firstjoin
//	for i in 1 2 3 4 5; do /tmp/firstjoin; done
//
// With -trials N it runs N fresh processes of itself instead, alternating
// which comes first in each, the first Join or one half alone, and prints the
// distribution over them of the first Join's time and of where it went:
//
//	start    from the call to a's start (the default pool's start, the lease)
//	b starts from the call to b's start on another goroutine
//	a, b     each half's own time, beside one half alone in the same process
//	tail     from the later half's end to Join's return (the wake-up of a waiter)
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// halfRounds of the splitmix64 finalizer take about 100 ms here.
const halfRounds = 30_000_000

var sink uint64

func half(seed uint64) uint64 {
	h := seed
	for range halfRounds {
		h += 0x9E3779B97F4A7C15
		h = (h ^ h>>30) * 0xBF58476D1CE4E5B9
		h = (h ^ h>>27) * 0x94D049BB133111EB
		h ^= h >> 31
	}
	return h
}

// trial is one process's first Join, in milliseconds.
type trial struct {
	JoinFirst                 bool // the Join ran before the half alone
	Alone, Join               float64
	Start, BStart, A, B, Tail float64
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// firstJoin times the process's first par.Join and its parts.
func firstJoin(t *trial) {
	var a, b uint64
	var aStart, aEnd, bStart, bEnd time.Time
	start := time.Now()
	par.Join(func() {
		aStart = time.Now()
		a = half(1)
		aEnd = time.Now()
	}, func() {
		bStart = time.Now()
		b = half(2)
		bEnd = time.Now()
	})
	end := time.Now()
	sink += a + b
	t.Join = ms(end.Sub(start))
	t.Start = ms(aStart.Sub(start))
	t.BStart = ms(bStart.Sub(start))
	t.A = ms(aEnd.Sub(aStart))
	t.B = ms(bEnd.Sub(bStart))
	last := aEnd
	if bEnd.After(last) {
		last = bEnd
	}
	t.Tail = ms(end.Sub(last))
}

func alone(t *trial) {
	start := time.Now()
	sink += half(0)
	t.Alone = ms(time.Since(start))
}

func main() {
	trials := flag.Int("trials", 0, "run this many fresh processes, alternating the order, and print the distribution")
	child := flag.String("child", "", "internal: run one trial, join-first or alone-first, and print it as JSON")
	flag.Parse()
	switch {
	case *child != "":
		var t trial
		t.JoinFirst = *child == "join-first"
		if t.JoinFirst {
			firstJoin(&t)
			alone(&t)
		} else {
			alone(&t)
			firstJoin(&t)
		}
		json.NewEncoder(os.Stdout).Encode(t)
	case *trials > 0:
		runTrials(*trials)
	default:
		var t trial
		alone(&t)
		fmt.Printf("one half alone: %.0f ms\n", t.Alone)
		for k := range 4 {
			firstJoin(&t)
			fmt.Printf("join %d: %.0f ms (%.2fx one half)\n", k+1, t.Join, t.Join/t.Alone)
		}
	}
}

// runTrials runs n child processes of this program and prints the
// distribution of each figure.
func runTrials(n int) {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "firstjoin:", err)
		os.Exit(1)
	}
	var ts []trial
	for i := range n {
		order := "alone-first"
		if i%2 == 0 {
			order = "join-first"
		}
		out, err := exec.Command(self, "-child", order).Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "firstjoin: trial:", err)
			os.Exit(1)
		}
		var t trial
		if err := json.Unmarshal(out, &t); err != nil {
			fmt.Fprintln(os.Stderr, "firstjoin: trial output:", err)
			os.Exit(1)
		}
		ts = append(ts, t)
	}
	over := 0
	for _, t := range ts {
		if t.Join > 110 {
			over++
		}
	}
	fmt.Printf("%d processes; first Join over 110 ms in %d\n\n", n, over)
	fmt.Println("| ms | min | p25 | median | p75 | max |")
	fmt.Println("|---|--:|--:|--:|--:|--:|")
	row := func(name string, f func(trial) float64) {
		var xs []float64
		for _, t := range ts {
			xs = append(xs, f(t))
		}
		slices.Sort(xs)
		q := func(p float64) float64 { return xs[int(p*float64(len(xs)-1)+0.5)] }
		fmt.Printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", name, xs[0], q(0.25), q(0.5), q(0.75), xs[len(xs)-1])
	}
	row("first Join", func(t trial) float64 { return t.Join })
	row("one half alone", func(t trial) float64 { return t.Alone })
	row("Join / half alone", func(t trial) float64 { return t.Join / t.Alone })
	row("start (call to a)", func(t trial) float64 { return t.Start })
	row("b starts (call to b)", func(t trial) float64 { return t.BStart })
	row("a", func(t trial) float64 { return t.A })
	row("b", func(t trial) float64 { return t.B })
	row("later half / half alone", func(t trial) float64 { return max(t.A, t.B) / t.Alone })
	row("tail (end to return)", func(t trial) float64 { return t.Tail })
	for _, first := range []bool{true, false} {
		var js []float64
		for _, t := range ts {
			if t.JoinFirst == first {
				js = append(js, t.Join)
			}
		}
		slices.Sort(js)
		if len(js) > 0 {
			fmt.Printf("\nJoin first in the process: %v; first Join median %.2f ms over %d", first, js[len(js)/2], len(js))
		}
	}
	fmt.Println()
}
