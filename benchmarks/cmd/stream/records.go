package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// A record is a large item: 1 KB.
type record [1024]byte

// recordCount records pass through each run; the consumer sleeps
// recordPause every recordEvery of them (a slow writer).
const (
	recordCount = 100_000
	recordEvery = 1000
	recordPause = time.Millisecond
)

// recordsOf is the seq of the records: record i holds i's bytes, spread.
func recordsOf(yield func(record) bool) {
	for i := range recordCount {
		var r record
		for k := range r {
			r[k] = byte(i>>(k%24) + k)
		}
		if !yield(r) {
			return
		}
	}
}

// transform maps a record to another: a running hash of its bytes.
func transform(r record) record {
	var out record
	h := uint64(14695981039346656037)
	for k, b := range r {
		h = (h ^ uint64(b)) * 1099511628211
		out[k] = byte(h >> 56)
	}
	return out
}

// heapPeak tracks the peak HeapInuse, read where the consumer pauses.
type heapPeak struct{ most uint64 }

func (p *heapPeak) look() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.most = max(p.most, ms.HeapInuse)
}

// runRecordsChild runs the records through gopar or by hand and returns a
// checksum and the peak HeapInuse in bytes.
func runRecordsChild(gopar bool) (uint64, uint64) {
	var peak heapPeak
	var sum uint64
	n := 0
	consume := func(r record) {
		sum = sum*31 + uint64(r[0]) + uint64(r[1023])<<8
		if n++; n%recordEvery == 0 {
			peak.look()
			time.Sleep(recordPause)
		}
	}
	if gopar {
		for r := range par.Map(par.FromSeq(recordsOf), transform).Values() {
			consume(r)
		}
	} else {
		for r := range handRecords() {
			consume(r)
		}
	}
	peak.look()
	return sum, peak.most
}

// handRecords is the hand-written ordered fan-out: a producer cuts the
// records into batches of 1,024, P workers map them, and the consumer
// takes the results in order through a channel of 2P futures.
func handRecords() func(func(record) bool) {
	return func(yield func(record) bool) {
		p := runtime.GOMAXPROCS(0)
		type job struct {
			in  []record
			out chan []record
		}
		jobs := make(chan job, p)
		order := make(chan chan []record, 2*p)
		quit := make(chan struct{})
		var wg sync.WaitGroup
		for range p {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range jobs {
					out := make([]record, len(j.in))
					for i, r := range j.in {
						out[i] = transform(r)
					}
					j.out <- out
				}
			}()
		}
		go func() {
			defer close(order)
			defer close(jobs)
			batch := make([]record, 0, 1024)
			send := func() bool {
				j := job{in: batch, out: make(chan []record, 1)}
				select {
				case order <- j.out:
				case <-quit:
					return false
				}
				jobs <- j
				batch = make([]record, 0, 1024)
				return true
			}
			for r := range recordsOf {
				if batch = append(batch, r); len(batch) == cap(batch) && !send() {
					return
				}
			}
			if len(batch) > 0 {
				send()
			}
		}()
		defer wg.Wait()
		defer close(quit)
		for out := range order {
			for _, r := range <-out {
				if !yield(r) {
					return
				}
			}
		}
	}
}

// runRecords runs the records check: rounds of the hand-written fan-out
// and of gopar at 2, 16 and 64 workers, alternated, each in a child process.
func runRecords(rounds, procs int) {
	cases := []struct {
		im      string
		workers int
	}{{"records-hand", procs}, {"records-gopar", 2}, {"records-gopar", 16}, {"records-gopar", 64}}
	peaks := make([][]int64, len(cases))
	for r := 0; r < rounds; r++ {
		for k, c := range cases {
			sum, took, peak, err := runWorkers(c.im, "", procs, c.workers)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			peaks[k] = append(peaks[k], peak)
			fmt.Printf("round %d %-14s workers %2d %8.3f s  peak HeapInuse %6.1f MB  checksum %s\n", r+1, c.im, c.workers, took.Seconds(), float64(peak)/1e6, sum)
		}
	}
	fmt.Printf("\nGOMAXPROCS=%d, %d records of 1 KB, the most peak HeapInuse of %d rounds:\n", procs, recordCount, rounds)
	for k, c := range cases {
		most := float64(slices.Max(peaks[k])) / 1e6
		target := ""
		if c.im == "records-gopar" {
			target = fmt.Sprintf(" (target <= 16 MB: %s)", pass(most <= 16))
		}
		fmt.Printf("  %-14s workers %2d: %6.1f MB%s\n", c.im, c.workers, most, target)
	}
}
