package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The charts are SVG files written beside the Markdown report, named after
// it: benchmarks-speedup.svg (every implementation's speedup over seq, one
// panel per workload, at the last GOMAXPROCS of the run) and, for a sweep,
// benchmarks-scaling.svg (speedup against GOMAXPROCS, one panel per workload).

// chartSection writes the charts beside the report at out and returns the
// Markdown that shows them.
func chartSection(out string, runs []run) string {
	dir := filepath.Dir(out)
	base := strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
	last := runs[len(runs)-1]
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Charts\n\n")
	name := base + "-speedup.svg"
	saveTiles(filepath.Join(dir, name), speedupPanels(last))
	fmt.Fprintf(&b, "![Speedup over seq of every implementation per workload, GOMAXPROCS=%d](%s)\n", last.procs, name)
	if len(runs) > 1 {
		name = base + "-scaling.svg"
		saveTiles(filepath.Join(dir, name), scalingPanels(runs))
		fmt.Fprintf(&b, "\n![Speedup over seq against GOMAXPROCS per workload](%s)\n", name)
	}
	return b.String()
}

// goparColor and otherColor tell gopar's bars from the rest.
var (
	goparColor = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	otherColor = color.RGBA{R: 0xaa, G: 0xaa, B: 0xaa, A: 0xff}
)

// speedupPanels draws, per workload, a horizontal bar per implementation: its
// speedup over seq, gopar's in colour, a line at 1 (seq) for reference.
func speedupPanels(r run) []*plot.Plot {
	var ps []*plot.Plot
	for _, res := range r.results {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s %s (GOMAXPROCS=%d)", res.w.ID, res.w.Name, r.procs)
		p.X.Label.Text = "speedup over seq"
		p.X.Min = 0
		var names []string
		gopar := make(plotter.Values, 0)
		other := make(plotter.Values, 0)
		// Bottom to top, so that the list reads in the table's order.
		for i := len(res.w.Impls) - 1; i >= 0; i-- {
			name := res.w.Impls[i].Name
			s := speedup(res, name)
			names = append(names, name)
			if strings.HasPrefix(name, "gopar") {
				gopar, other = append(gopar, s), append(other, 0)
			} else {
				gopar, other = append(gopar, 0), append(other, s)
			}
		}
		for _, series := range []struct {
			vs plotter.Values
			c  color.Color
		}{{other, otherColor}, {gopar, goparColor}} {
			bars, err := plotter.NewBarChart(series.vs, vg.Points(9))
			if err != nil {
				fatalf("chart: %v", err)
			}
			bars.Horizontal = true
			bars.Color = series.c
			bars.LineStyle.Width = 0
			p.Add(bars)
		}
		ref, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(len(names)) - 0.5}})
		if err != nil {
			fatalf("chart: %v", err)
		}
		ref.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(ref)
		p.X.Max *= 1.05 // room after the longest bar
		p.NominalY(names...)
		p.Add(plotter.NewGrid())
		ps = append(ps, p)
	}
	return ps
}

// scalingLeftOut are the implementations the scaling chart does not draw:
// the plain loops (speedup 1 by definition, or a constant), and variants that
// are drawn in the speedup chart but would crowd the lines.
var scalingLeftOut = []string{"seq", "seq-fn", "dynamic-fn", "rayon-split", "conc-map-item", "conc-foreach-item"}

// scalingPanels draws, per workload, one line per implementation: speedup over
// seq against GOMAXPROCS, with the ideal (speedup = GOMAXPROCS) dashed.
func scalingPanels(runs []run) []*plot.Plot {
	// One colour and dash per implementation across all panels.
	var all []string
	for _, res := range runs[0].results {
		for _, im := range res.w.Impls {
			if !slices.Contains(all, im.Name) && !slices.Contains(scalingLeftOut, im.Name) {
				all = append(all, im.Name)
			}
		}
	}
	var ps []*plot.Plot
	for k, res := range runs[0].results {
		p := plot.New()
		p.Title.Text = res.w.ID + " " + res.w.Name
		p.X.Label.Text = "GOMAXPROCS"
		p.Y.Label.Text = "speedup over seq"
		p.Legend.Top, p.Legend.Left = true, true
		p.Legend.TextStyle.Font.Size = vg.Points(7)
		var ticks []plot.Tick
		for _, r := range runs {
			ticks = append(ticks, plot.Tick{Value: float64(r.procs), Label: fmt.Sprint(r.procs)})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Scale = plot.LogScale{} // 1, 2, 4, 8, 16 evenly spaced
		ideal, err := plotter.NewLine(plotter.XYs{{X: float64(runs[0].procs), Y: float64(runs[0].procs)},
			{X: float64(runs[len(runs)-1].procs), Y: float64(runs[len(runs)-1].procs)}})
		if err != nil {
			fatalf("chart: %v", err)
		}
		ideal.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
		ideal.Color = otherColor
		if res.w.Balanced {
			p.Add(ideal)
		}
		for _, im := range res.w.Impls {
			c := slices.Index(all, im.Name)
			if c < 0 {
				continue
			}
			var xys plotter.XYs
			for _, r := range runs {
				if s := speedup(r.results[k], im.Name); s > 0 {
					xys = append(xys, plotter.XY{X: float64(r.procs), Y: s})
				}
			}
			if len(xys) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(xys)
			if err != nil {
				fatalf("chart: %v", err)
			}
			l.Color, pts.Color = plotutil.Color(c), plotutil.Color(c)
			l.Dashes = plotutil.Dashes(c / len(plotutil.DefaultColors))
			pts.Shape = plotutil.Shape(c)
			if strings.HasPrefix(im.Name, "gopar") {
				l.Width = vg.Points(2)
			}
			p.Add(l, pts)
			p.Legend.Add(im.Name, l, pts)
		}
		p.Add(plotter.NewGrid())
		ps = append(ps, p)
	}
	return ps
}

// saveTiles lays the panels out two to a row and writes them as one SVG.
func saveTiles(path string, ps []*plot.Plot) {
	const cols = 2
	rows := (len(ps) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
		for j := range cols {
			if k := i*cols + j; k < len(ps) {
				grid[i][j] = ps[k]
			}
		}
	}
	w, h := 6*vg.Inch*cols, 4.5*vg.Inch*vg.Length(rows)
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Inch / 4, PadY: vg.Inch / 4,
		PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8, PadLeft: vg.Inch / 8, PadRight: vg.Inch / 8}
	canvases := plot.Align(grid, tiles, dc)
	for i := range grid {
		for j, p := range grid[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		fatalf("chart: %v", err)
	}
	defer f.Close()
	if _, err := c.WriteTo(f); err != nil {
		fatalf("chart: %v", err)
	}
}
