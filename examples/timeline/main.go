// Command timeline records the schedule of two uneven loops with
// WithTimeline and draws each as an SVG: one lane per goroutine, blocks
// coloured by where they lie in the loop, steals as arrows from the victim
// to the thief.
//
//   - W3, the triangle: 2^15 items, item i mixing its index i/4 times. The
//     pool's workers start on equal partitions of the indexes, so those
//     with the cheap low partitions finish first and steal the top quarter
//     of what the others have left, again and again.
//   - W4, the hot spot: 2^20 items of one mix each, except the last 1%,
//     which do 400. The worker holding the hot end is stolen from until
//     the others share it.
//
// It prints where the pictures went and each lane's blocks and steals:
//
//	go run ./examples/timeline
//	go run ./examples/timeline -out .
//
// Without -out, the pictures go to the temporary directory (os.TempDir).
// On 2 cores only two lanes are busy at a time; run it with GOMAXPROCS=4
// or more (or GOPAR_WORKERS) for a busier picture.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// mix is the splitmix64 finalizer, the unit of work of gopar's benchmarks.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// A workload is a loop of n items whose item i costs rounds(i) mixes.
type workload struct {
	name   string // also the picture's file name, with .svg
	what   string
	n      int
	rounds func(i int) int
}

// item is the work of item i.
func (w workload) item(i int) uint64 {
	h := uint64(i)
	for range w.rounds(i) {
		h = mix(h)
	}
	return h
}

// triangle is W3 over n items.
func triangle(n int) workload {
	return workload{name: "w3-triangle", what: fmt.Sprintf("W3, triangle: %d items, item i mixes i/4 times", n), n: n,
		rounds: func(i int) int { return i / 4 }}
}

// hotSpot is W4 over n items: the last 1% cost 400 times the others.
func hotSpot(n int) workload {
	hot := n - n/100
	return workload{name: "w4-hotspot", what: fmt.Sprintf("W4, hot spot: %d items of 1 mix, the last 1%% of 400", n), n: n,
		rounds: func(i int) int {
			if i >= hot {
				return 400
			}
			return 1
		}}
}

// plain sums the items with a loop.
func (w workload) plain() uint64 {
	var s uint64
	for i := range w.n {
		s += w.item(i)
	}
	return s
}

// record sums the items with gopar and returns the sum with its schedule.
func (w workload) record() (uint64, *par.Timeline) {
	var tl par.Timeline
	sum := par.Sum(par.Map(par.Range(0, w.n).WithTimeline(&tl), w.item))
	return sum, &tl
}

// draw runs w, checks its sum against a plain loop, writes its picture into
// dir and prints a summary to out.
func draw(out io.Writer, w workload, dir string) (*par.Timeline, error) {
	start := time.Now()
	want := w.plain()
	plain := time.Since(start)
	got, tl := w.record()
	if got != want {
		return nil, fmt.Errorf("%s: gopar summed %d, the plain loop %d", w.name, got, want)
	}
	path := filepath.Join(dir, w.name+".svg")
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := tl.WriteSVG(f); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "%s\n  plain loop %v, gopar with the timeline %v; picture: %s\n",
		w.what, plain.Round(time.Microsecond), tl.Elapsed.Round(time.Microsecond), path)
	steals := make([]int, len(tl.Lanes))
	for _, s := range tl.Steals {
		steals[s.Thief]++
	}
	for k, l := range tl.Lanes {
		fmt.Fprintf(out, "  %-10s %6d blocks %4d steals\n", l.Name, len(l.Blocks), steals[k])
	}
	return tl, nil
}

func main() {
	dir := flag.String("out", os.TempDir(), "the directory to write the pictures into")
	flag.Parse()
	fmt.Printf("%d workers\n", par.DefaultPool().Workers())
	for _, w := range []workload{triangle(1 << 15), hotSpot(1 << 20)} {
		if _, err := draw(os.Stdout, w, *dir); err != nil {
			fmt.Fprintln(os.Stderr, "timeline:", err)
			os.Exit(1)
		}
	}
}
