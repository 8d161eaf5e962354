// Command mandelbrot renders the Mandelbrot set one row per item, an uneven
// workload: rows through the set cost up to a thousand times more than rows
// outside it. It prints a small picture, then times a plain loop, a static
// fan-out (one goroutine per equal band of rows) and gopar, which balances
// the rows by work stealing, and writes the picture as a PNG. The picture
// is symmetric about its middle row, so on 2 cores a static halving happens
// to balance it; with 3 or more the bands differ in cost and only the
// balanced schedule keeps every core busy (try GOMAXPROCS=3).
//
//	go run ./examples/mandelbrot
//	go run ./examples/mandelbrot -png mandelbrot.png
//
// Without -png, the picture goes to mandelbrot.png in the temporary
// directory (os.TempDir); the path is printed at the end.
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// frame is a picture of [-2, 1] x [-1.5, 1.5], width x height points,
// iterating each point up to maxIter times.
type frame struct {
	width, height, maxIter int
}

// iterations returns how many iterations point (x, y) takes to escape, or
// maxIter if it does not: maxIter for the points of the set.
func (f frame) iterations(x, y int) int {
	cr := -2 + 3*float64(x)/float64(f.width)
	ci := -1.5 + 3*float64(y)/float64(f.height)
	zr, zi, n := 0.0, 0.0, 0
	for ; n < f.maxIter && zr*zr+zi*zi <= 4; n++ {
		zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
	}
	return n
}

// row returns the total number of iterations over row y.
func (f frame) row(y int) int {
	total := 0
	for x := range f.width {
		total += f.iterations(x, y)
	}
	return total
}

// plain is the sequential loop.
func (f frame) plain() int {
	total := 0
	for y := range f.height {
		total += f.row(y)
	}
	return total
}

// static is the hand-written fan-out: P goroutines, P equal bands of rows.
func (f frame) static() int {
	p := goruntime.GOMAXPROCS(0)
	sums := make([]int, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for y := k * f.height / p; y < (k+1)*f.height/p; y++ {
				sums[k] += f.row(y)
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, s := range sums {
		total += s
	}
	return total
}

// gopar is the same loop with gopar: one item per row.
func (f frame) gopar() int {
	return par.Range(0, f.height).Map(f.row).Sum()
}

// shade is the colour of a point that took n iterations: black inside the
// set, from dark blue to white outside it as n grows.
func (f frame) shade(n int) color.RGBA {
	if n >= f.maxIter {
		return color.RGBA{A: 255}
	}
	// A slowly growing scale: most points escape within a few dozen
	// iterations, and those near the border are the interesting ones.
	t := min(1, float64(n)/64)
	return color.RGBA{
		R: uint8(255 * t * t),
		G: uint8(255 * t),
		B: uint8(128 + 127*t),
		A: 255,
	}
}

// image renders the frame, one row per item in parallel; each row writes
// only its own pixels.
func (f frame) image() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, f.width, f.height))
	par.Range(0, f.height).ForEach(func(y int) {
		for x := range f.width {
			img.SetRGBA(x, y, f.shade(f.iterations(x, y)))
		}
	})
	return img
}

// plainImage renders the frame with a plain loop.
func (f frame) plainImage() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, f.width, f.height))
	for y := range f.height {
		for x := range f.width {
			img.SetRGBA(x, y, f.shade(f.iterations(x, y)))
		}
	}
	return img
}

// ascii is a small picture: one character per 16x64 block, darker = more
// work.
func (f frame) ascii() string {
	shades := " .:-=+*#%@"
	var b strings.Builder
	for y := 0; y < f.height; y += 64 {
		for x := 0; x < f.width; x += 16 {
			n := f.iterations(x, y)
			b.WriteByte(shades[min(len(shades)-1, n*len(shades)/60)])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func writePNG(path string, img image.Image) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(out, img); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func timed(f func() int) (int, time.Duration) {
	start := time.Now()
	r := f()
	return r, time.Since(start)
}

func main() {
	pngPath := flag.String("png", filepath.Join(os.TempDir(), "mandelbrot.png"), "where to write the picture")
	flag.Parse()

	f := frame{width: 1024, height: 1024, maxIter: 2000}
	fmt.Print(f.ascii())

	seqSum, seqTime := timed(f.plain)
	staticSum, staticTime := timed(f.static)
	goparSum, goparTime := timed(f.gopar)

	fmt.Printf("\n%dx%d, up to %d iterations per point, GOMAXPROCS=%d\n", f.width, f.height, f.maxIter, goruntime.GOMAXPROCS(0))
	fmt.Printf("plain loop:     %v\n", seqTime.Round(time.Millisecond))
	fmt.Printf("static fan-out: %v (%.2fx)\n", staticTime.Round(time.Millisecond), float64(seqTime)/float64(staticTime))
	fmt.Printf("gopar:          %v (%.2fx)\n", goparTime.Round(time.Millisecond), float64(seqTime)/float64(goparTime))
	fmt.Printf("same total iterations: %v\n", seqSum == staticSum && staticSum == goparSum)

	if err := writePNG(*pngPath, f.image()); err != nil {
		fmt.Fprintln(os.Stderr, "mandelbrot:", err)
		os.Exit(1)
	}
	fmt.Printf("picture: %s\n", *pngPath)
}
