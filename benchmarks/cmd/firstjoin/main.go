// Command firstjoin times the first par.Join of a program, the one that meets
// a default pool whose workers have not run yet, with two halves of about
// 100 ms of CPU each, then three more joins of the same halves. On P >= 2
// cores the ideal is 100 ms each (issue 22's bar for the first: 110 ms).
// Every start is a new process, so run it several times:
//
//	go build -o /tmp/firstjoin ./cmd/firstjoin
//	for i in 1 2 3 4 5; do /tmp/firstjoin; done
package main

import (
	"fmt"
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

func main() {
	seqStart := time.Now()
	sink += half(0)
	one := time.Since(seqStart)
	fmt.Printf("one half alone: %v\n", one.Round(time.Millisecond))
	for k := range 4 {
		var a, b uint64
		start := time.Now()
		par.Join(func() { a = half(1) }, func() { b = half(2) })
		took := time.Since(start)
		sink += a + b
		fmt.Printf("join %d: %v (%.2fx one half)\n", k+1, took.Round(time.Millisecond), float64(took)/float64(one))
	}
}
