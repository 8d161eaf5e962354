// Command mandelbrot renders the Mandelbrot set one row per item, an uneven
// workload: rows through the set cost up to a thousand times more than rows
// outside it. It prints a small picture, then times a plain loop, a static
// fan-out (one goroutine per equal band of rows) and gopar, which balances
// the rows by work stealing. The picture is symmetric about its middle row,
// so on 2 cores a static halving happens to balance it; with 3 or more the
// bands differ in cost and only the balanced schedule keeps every core busy
// (try GOMAXPROCS=3).
//
//	go run ./examples/mandelbrot
package main

import (
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/par"
)

const (
	width, height = 1024, 1024
	maxIter       = 2000
)

// row returns the total number of iterations over row y of the picture
// [-2, 1] x [-1.5, 1.5]; points of the set cost maxIter each.
func row(y int) int {
	ci := -1.5 + 3*float64(y)/height
	total := 0
	for x := range width {
		cr := -2 + 3*float64(x)/width
		zr, zi, n := 0.0, 0.0, 0
		for ; n < maxIter && zr*zr+zi*zi <= 4; n++ {
			zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		}
		total += n
	}
	return total
}

// static is the hand-written fan-out: P goroutines, P equal bands of rows.
func static() int {
	p := goruntime.GOMAXPROCS(0)
	sums := make([]int, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for y := k * height / p; y < (k+1)*height/p; y++ {
				sums[k] += row(y)
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

func timed(f func() int) (int, time.Duration) {
	start := time.Now()
	r := f()
	return r, time.Since(start)
}

func main() {
	// A small picture first: one character per 16x32 block, darker = more work.
	shades := " .:-=+*#%@"
	var b strings.Builder
	for y := 0; y < height; y += 64 {
		for x := 0; x < width; x += 16 {
			cr, ci := -2+3*float64(x)/width, -1.5+3*float64(y)/height
			zr, zi, n := 0.0, 0.0, 0
			for ; n < maxIter && zr*zr+zi*zi <= 4; n++ {
				zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
			}
			b.WriteByte(shades[min(len(shades)-1, n*len(shades)/60)])
		}
		b.WriteByte('\n')
	}
	fmt.Print(b.String())

	seqSum, seqTime := timed(func() int {
		total := 0
		for y := range height {
			total += row(y)
		}
		return total
	})
	staticSum, staticTime := timed(static)
	goparSum, goparTime := timed(func() int { return par.Range(0, height).Map(row).Sum() })

	fmt.Printf("\n%dx%d, up to %d iterations per point, GOMAXPROCS=%d\n", width, height, maxIter, goruntime.GOMAXPROCS(0))
	fmt.Printf("plain loop:     %v\n", seqTime.Round(time.Millisecond))
	fmt.Printf("static fan-out: %v (%.2fx)\n", staticTime.Round(time.Millisecond), float64(seqTime)/float64(staticTime))
	fmt.Printf("gopar:          %v (%.2fx)\n", goparTime.Round(time.Millisecond), float64(seqTime)/float64(goparTime))
	fmt.Printf("same total iterations: %v\n", seqSum == staticSum && staticSum == goparSum)
}
