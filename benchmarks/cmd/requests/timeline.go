package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/benchmarks"
	"github.com/gopar-dev/gopar/par"
)

// An op is one operation of the scenario, recorded with WithTimeline:
// which goroutine called it, when it started (from the window's start),
// and its schedule.
type op struct {
	caller string // "batch" or "request 1".."request N"
	n      int    // 0 for the batch loop, k for "request k"
	start  time.Duration
	tl     par.Timeline
}

// record runs the gopar form of the scenario for warm+window, and returns
// every operation that ran within the window, each with its timeline.
func record(s benchmarks.RequestSizes, warm, window time.Duration) []op {
	epoch := time.Now().Add(warm)
	end := epoch.Add(window)
	var (
		mu  sync.Mutex
		ops []op
		wg  sync.WaitGroup
	)
	run := func(k, n int, pause time.Duration) {
		caller := "batch"
		if k > 0 {
			caller = fmt.Sprintf("request %d", k)
		}
		for {
			t0 := time.Now()
			if !t0.Before(end) {
				return
			}
			var o op
			benchmarks.GoparSum(n, &o.tl)
			if time.Now().After(epoch) {
				o.caller, o.n, o.start = caller, k, t0.Sub(epoch)
				mu.Lock()
				ops = append(ops, o)
				mu.Unlock()
			}
			time.Sleep(pause)
		}
	}
	wg.Go(func() { run(0, s.Large, 0) })
	for k := 1; k <= s.Callers; k++ {
		wg.Go(func() { run(k, s.Small, s.Pause) })
	}
	wg.Wait()
	return ops
}

// drawTimeline records the scenario and writes its picture to path.
func drawTimeline(path string, s benchmarks.RequestSizes, warm, window time.Duration) error {
	ops := record(s, warm, window)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeSVG(f, ops, window); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeSVG draws the operations on one time axis: a lane per goroutine
// that ran blocks (the batch caller, the request callers, the pool's
// workers), the large operations' blocks grey and each request caller's
// blocks in a colour of its own, over [0, window).
func writeSVG(w io.Writer, ops []op, window time.Duration) error {
	const (
		label, plot, laneH, gap, top, axis = 100.0, 960.0, 22.0, 8.0, 40.0, 36.0
	)
	type rect struct {
		x0, x1 time.Duration
		colour string
		title  string
	}
	lanes := map[string][]rect{}
	colour := func(o op) string {
		if o.n == 0 {
			return "#9a9a9a"
		}
		hues := []string{"#d1495b", "#edae49", "#00798c", "#30638e", "#7b2d8b", "#3b8b2d"}
		return hues[(o.n-1)%len(hues)]
	}
	for _, o := range ops {
		for _, l := range o.tl.Lanes {
			name := l.Name
			if name == "caller" {
				name = o.caller
			}
			for _, b := range l.Blocks {
				lanes[name] = append(lanes[name], rect{
					x0: o.start + b.Start, x1: o.start + b.End, colour: colour(o),
					title: fmt.Sprintf("%s, from %v", o.caller, (o.start + b.Start).Round(time.Microsecond)),
				})
			}
		}
	}
	px := window / time.Duration(plot)
	names := make([]string, 0, len(lanes))
	for n, rs := range lanes {
		names = append(names, n)
		// Blocks of one colour less than a pixel apart are drawn as one.
		slices.SortFunc(rs, func(a, b rect) int { return int(a.x0 - b.x0) })
		merged := rs[:0]
		for _, r := range rs {
			if k := len(merged) - 1; k >= 0 && merged[k].colour == r.colour && r.x0-merged[k].x1 < px {
				merged[k].x1 = max(merged[k].x1, r.x1)
				continue
			}
			merged = append(merged, r)
		}
		lanes[n] = merged
	}
	rank := func(n string) int {
		switch {
		case n == "batch":
			return 0
		case strings.HasPrefix(n, "request"):
			return 1
		}
		return 2
	}
	slices.SortFunc(names, func(a, b string) int {
		if r := rank(a) - rank(b); r != 0 {
			return r
		}
		return strings.Compare(a, b)
	})
	x := func(d time.Duration) float64 { return label + plot*float64(d)/float64(window) }
	height := top + float64(len(names))*(laneH+gap) + axis
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", label+plot+20, height)
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14">%d operations in %v: the batch loop (grey) and %d request callers (colours); a lane per goroutine that ran blocks</text>`+"\n", len(ops), window, countCallers(ops))
	for i, n := range names {
		y := top + float64(i)*(laneH+gap)
		fmt.Fprintf(&b, `<text x="10" y="%.0f">%s</text>`+"\n", y+laneH*0.7, n)
		for _, r := range lanes[n] {
			if r.x1 <= 0 || r.x0 >= window {
				continue
			}
			x0, x1 := x(max(r.x0, 0)), x(min(r.x1, window))
			fmt.Fprintf(&b, `<rect x="%.2f" y="%.0f" width="%.2f" height="%.0f" fill="%s"><title>%s</title></rect>`+"\n", x0, y, max(x1-x0, 0.5), laneH, r.colour, r.title)
		}
	}
	ay := top + float64(len(names))*(laneH+gap) + 4
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", label, ay, label+plot, ay)
	for k := 0; k <= 10; k++ {
		d := window * time.Duration(k) / 10
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%v</text>`+"\n", x(d), ay+16, d.Round(10*time.Microsecond))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func countCallers(ops []op) int {
	seen := map[string]bool{}
	for _, o := range ops {
		if o.n > 0 {
			seen[o.caller] = true
		}
	}
	return len(seen)
}
