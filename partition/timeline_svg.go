package partition

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// The picture's geometry, in SVG user units (pixels at 100%).
const (
	svgLabelWidth = 110 // the lane names, left of the plot
	svgPlotWidth  = 960
	svgMargin     = 20
	svgTop        = 56 // the heading and the legend
	svgLaneHeight = 26
	svgLaneGap    = 12
	svgAxis       = 40 // the time axis, below the lanes
)

// WriteSVG draws t as an SVG picture: one lane per goroutine, with time
// running left to right, its blocks as rectangles coloured by their
// position in the loop (so a stolen range keeps the colour of where it came
// from), and each steal as an arrow from the victim's lane to the thief's.
// Blocks that follow one another on a lane with contiguous indexes, less
// than a pixel apart, are drawn as one rectangle; hovering over a rectangle
// or an arrow shows its indexes and times. It returns the first error of w.
func (t *Timeline) WriteSVG(w io.Writer) error {
	p := svgPrinter{w: w}
	elapsed, lo, hi, nblocks := t.svgExtent()
	x := func(d time.Duration) float64 {
		return svgLabelWidth + svgPlotWidth*float64(d)/float64(elapsed)
	}
	laneY := func(i int) float64 { return svgTop + float64(i)*(svgLaneHeight+svgLaneGap) }
	// hue places an index on the loop, red at the bottom to violet at the top.
	hue := func(i int) float64 {
		if hi <= lo {
			return 0
		}
		return 280 * (float64(i) - float64(lo)) / (float64(hi) - float64(lo))
	}
	width := svgLabelWidth + svgPlotWidth + svgMargin
	height := laneY(len(t.Lanes)) + svgAxis

	p.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	p.printf(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#222"/></marker></defs>` + "\n")
	p.printf(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	p.printf(`<text x="%d" y="20" font-size="14">%d lanes, %d blocks, %d steals in %v</text>`+"\n",
		svgMargin, len(t.Lanes), nblocks, len(t.Steals), roundDuration(t.Elapsed))
	p.printf(`<text x="%d" y="38" fill="#555">colour: index in the loop, from red (%d) to violet (%d); arrows: steals, from victim to thief</text>`+"\n",
		svgMargin, lo, hi)

	for i, l := range t.Lanes {
		y := laneY(i)
		p.printf(`<text x="%d" y="%.1f" dominant-baseline="middle">%s</text>`+"\n",
			svgMargin/2, y+svgLaneHeight/2, svgEscape(l.Name))
		p.printf(`<rect x="%d" y="%.1f" width="%d" height="%d" fill="#f2f2f2"/>`+"\n",
			svgLabelWidth, y, svgPlotWidth, svgLaneHeight)
		for _, r := range mergeBlocks(l.Blocks, float64(elapsed)/svgPlotWidth) {
			x0, x1 := x(r.first.Start), x(r.last.End)
			p.printf(`<rect x="%.2f" y="%.1f" width="%.2f" height="%d" fill="hsl(%.0f,70%%,55%%)"><title>[%d, %d): %d blocks, %v to %v</title></rect>`+"\n",
				x0, y, max(x1-x0, 0.5), svgLaneHeight, hue(r.first.Lo),
				r.first.Lo, r.last.Hi, r.n, roundDuration(r.first.Start), roundDuration(r.last.End))
		}
	}
	for _, s := range t.Steals {
		ax := x(s.At)
		y0, y1 := laneY(s.Victim)+svgLaneHeight/2, laneY(s.Thief)+svgLaneHeight/2
		// Stop at the edge of the thief's lane, where the head shows.
		if y1 > y0 {
			y1 -= svgLaneHeight / 2
		} else {
			y1 += svgLaneHeight / 2
		}
		p.printf(`<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f" stroke="#222" stroke-width="1.2" marker-end="url(#arrow)"><title>%s stole [%d, %d) from %s at %v</title></line>`+"\n",
			ax, y0, ax, y1, svgEscape(t.Lanes[s.Thief].Name), s.Lo, s.Hi, svgEscape(t.Lanes[s.Victim].Name), roundDuration(s.At))
	}

	p.timeAxis(laneY(len(t.Lanes)), elapsed, x)
	p.printf("</svg>\n")
	return p.err
}

// svgExtent returns what t's picture spans: the time to the end of its
// last block, or t.Elapsed if later (at least 1ns), the indexes [lo, hi)
// of its blocks (0, 0 for none), and the number of blocks.
func (t *Timeline) svgExtent() (elapsed time.Duration, lo, hi, nblocks int) {
	elapsed = t.Elapsed
	lo, hi = math.MaxInt, math.MinInt
	for _, l := range t.Lanes {
		nblocks += len(l.Blocks)
		for _, b := range l.Blocks {
			elapsed = max(elapsed, b.End)
			lo, hi = min(lo, b.Lo), max(hi, b.Hi)
		}
	}
	if nblocks == 0 {
		lo, hi = 0, 0
	}
	return max(elapsed, 1), lo, hi, nblocks
}

// timeAxis draws the time axis at height y, from 0 to elapsed, with a tick
// every tickStep; x places a time on the plot.
func (p *svgPrinter) timeAxis(y float64, elapsed time.Duration, x func(time.Duration) float64) {
	p.printf(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#222"/>`+"\n",
		svgLabelWidth, y, svgLabelWidth+svgPlotWidth, y)
	step := tickStep(elapsed)
	for d := time.Duration(0); d <= elapsed; d += step {
		p.printf(`<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f" stroke="#222"/><text x="%.2f" y="%.1f" text-anchor="middle">%v</text>`+"\n",
			x(d), y, x(d), y+5, x(d), y+20, d)
	}
}

// A blockRun is blocks that WriteSVG draws as one rectangle.
type blockRun struct {
	first, last Block
	n           int
}

// mergeBlocks joins each block of a lane to the one before when its
// indexes follow on and less than pixel apart in time: a lane that works
// through its range in ten thousand small blocks is one rectangle, not ten
// thousand.
func mergeBlocks(blocks []Block, pixel float64) []blockRun {
	var runs []blockRun
	for _, b := range blocks {
		if k := len(runs) - 1; k >= 0 && runs[k].last.Hi == b.Lo && float64(b.Start-runs[k].last.End) < pixel {
			runs[k].last = b
			runs[k].n++
			continue
		}
		runs = append(runs, blockRun{first: b, last: b, n: 1})
	}
	return runs
}

// tickStep returns a round step between ticks (1, 2 or 5 times a power of
// ten nanoseconds) that puts about six ticks on an axis of length d.
func tickStep(d time.Duration) time.Duration {
	step := time.Duration(1)
	for {
		for _, m := range []time.Duration{1, 2, 5} {
			if d/(m*step) <= 6 {
				return m * step
			}
		}
		step *= 10
	}
}

// roundDuration keeps the four leading digits of d: 12.35ms, not
// 12.345678ms.
func roundDuration(d time.Duration) time.Duration {
	step := time.Duration(1)
	for d/step >= 10000 {
		step *= 10
	}
	return d.Round(step)
}

// svgEscape escapes s for SVG text.
func svgEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// svgPrinter writes formatted text and keeps the first error.
type svgPrinter struct {
	w   io.Writer
	err error
}

func (p *svgPrinter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
