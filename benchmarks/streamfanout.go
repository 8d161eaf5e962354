package benchmarks

import (
	"bytes"
	"iter"
	"runtime"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/par"
	"golang.org/x/sync/errgroup"
)

func init() { Streams = append(Streams, S1, S2, S3) }

// S1: a word count into a map over the lines of a text given as a
// sequence, the fan-out written today with a producer goroutine, a channel
// of line batches and a map per worker.

// streamText is the first 24 MB or so of the toolkit's text (T1), as one
// []byte of lines.
var streamText = sync.OnceValue(func() []byte {
	var b []byte
	for _, l := range text() {
		if len(b) >= 24_000_000 {
			break
		}
		b = append(append(b, l...), '\n')
	}
	return b
})

// textLines is the sequence of S1: the lines of streamText, without their
// newline, as a reader of the text would yield them.
func textLines() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for l := range bytes.Lines(streamText()) {
			if !yield(l[:len(l)-1]) {
				return
			}
		}
	}
}

// streamBatch is the batch of the hand-written fan-outs: lines sent on
// their channel at a time, so that a channel operation is not paid per
// line.
const streamBatch = 256

// seqWords is S1's hand-written fan-out: a producer goroutine that sends
// batches of lines on a buffered channel, GOMAXPROCS workers with a map
// each, merged once the workers are done.
func seqWords(lines iter.Seq[[]byte]) map[string]int {
	p := runtime.GOMAXPROCS(0)
	batches := make(chan [][]byte, 4*p)
	go func() {
		defer close(batches)
		batch := make([][]byte, 0, streamBatch)
		for l := range lines {
			if batch = append(batch, l); len(batch) == streamBatch {
				batches <- batch
				batch = make([][]byte, 0, streamBatch)
			}
		}
		if len(batch) > 0 {
			batches <- batch
		}
	}()
	maps := make([]map[string]int, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Go(func() {
			m := map[string]int{}
			for batch := range batches {
				m = countWords(batch, m)
			}
			maps[k] = m
		})
	}
	wg.Wait()
	return mergeAllWords(maps)
}

var S1 = &Workload{
	ID:   "S1",
	Name: "seq-words",
	What: "word count of 24 MB of lines given as an iter.Seq, into a map",
	Impls: []Impl{
		{"seq", func() uint64 {
			m := map[string]int{}
			for l := range textLines() {
				m = countLine(m, l)
			}
			return countsSum(m)
		}},
		{"static", func() uint64 { return countsSum(seqWords(textLines())) }},
		// A map per goroutine for the whole sequence: the sum of counts is
		// commutative, so the Fold may be Unordered.
		{"gopar", func() uint64 {
			return countsSum(par.Fold(par.FromSeq(textLines()).Unordered(),
				func() map[string]int { return map[string]int{} }, countLine, mergeWords))
		}},
		// The same Fold in source order: a map per run of each batch.
		{"gopar-ordered", func() uint64 {
			return countsSum(par.Fold(par.FromSeq(textLines()),
				func() map[string]int { return map[string]int{} }, countLine, mergeWords))
		}},
	},
	Targets: []Target{
		{Impl: "gopar", Against: "static", Limit: 1.10},
		{Impl: "gopar", Against: "seq", Speedup: true, Limit: 1.6},
		{Impl: "gopar", Against: "gopar-ordered", Limit: 1.0},
	},
}

// S2: a producer that spends about 20 us per item (a slow lister), then
// about 20 us of CPU work per item.
const (
	s2N = 10_000
	// s2Rounds of mix take about 20 us here.
	s2Rounds = 10_000
)

// s2Produce is S2's lister: item i after about 20 us of CPU.
func s2Produce() iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		for i := range s2N {
			h := uint64(i)
			for range s2Rounds {
				h = mix(h)
			}
			if !yield(h) {
				return
			}
		}
	}
}

// s2Work is S2's work on an item: about 20 us of CPU.
func s2Work(h uint64) uint64 {
	for range s2Rounds {
		h = mix(h)
	}
	return h
}

// s2Workers is the workers' side of S2's hand-written fan-out (and S7's):
// p goroutines, each summing s2Work of the items it receives, the sums
// added once the channel is closed and drained.
func s2Workers(p int, items <-chan uint64) uint64 {
	sums := make([]uint64, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Go(func() {
			for h := range items {
				sums[k] += s2Work(h)
			}
		})
	}
	wg.Wait()
	var s uint64
	for _, v := range sums {
		s += v
	}
	return s
}

var S2 = &Workload{
	ID:   "S2",
	Name: "slow-lister",
	What: "10,000 items from a lister that spends 20 us on each, then 20 us of CPU work each",
	Impls: []Impl{
		{"seq", func() uint64 {
			var s uint64
			for h := range s2Produce() {
				s += s2Work(h)
			}
			return s
		}},
		// The hand-written fan-out: a producer goroutine, a buffered
		// channel, GOMAXPROCS workers with a sum each.
		{"static", func() uint64 {
			p := runtime.GOMAXPROCS(0)
			items := make(chan uint64, 64)
			go func() {
				defer close(items)
				for h := range s2Produce() {
					items <- h
				}
			}()
			return s2Workers(p, items)
		}},
		{"gopar", func() uint64 { return par.Sum(par.Map(par.FromSeq(s2Produce()), s2Work)) }},
	},
	Targets: []Target{{Impl: "gopar", Against: "static", Limit: 1.10}},
}

// S3: an I/O fan-out whose results are used in completion order: s3N calls
// of 2 to 20 ms, at most s3Limit at once.
const (
	s3N     = 500
	s3Limit = 32
)

// s3Wait is call i's wait: 2 to 20 ms, spread over the calls.
func s3Wait(i int) time.Duration {
	return 2*time.Millisecond + time.Duration(mix(uint64(i))%18_000)*time.Microsecond
}

// s3Call is call i: its wait, then its result.
func s3Call(i int) uint64 {
	time.Sleep(s3Wait(i))
	return mix(uint64(i))
}

// S3Errgroup is S3's hand-written form: errgroup with SetLimit, each
// result sent on a channel as its call returns, consumed by use as they
// come. It returns the checksum.
func S3Errgroup(use func(uint64)) uint64 {
	results := make(chan uint64, s3Limit)
	var g errgroup.Group
	g.SetLimit(s3Limit)
	go func() {
		for i := range s3N {
			g.Go(func() error { results <- s3Call(i); return nil })
		}
		g.Wait()
		close(results)
	}()
	var s uint64
	for r := range results {
		use(r)
		s += r
	}
	return s
}

// S3Gopar is S3 with gopar: Blocking(32) and Unordered Values.
func S3Gopar(use func(uint64)) uint64 {
	var s uint64
	for r := range par.Map(par.Range(0, s3N).Blocking(s3Limit), s3Call).Unordered().Values() {
		use(r)
		s += r
	}
	return s
}

// S3Fastest is the shortest wait of S3's calls.
func S3Fastest() time.Duration {
	fastest := s3Wait(0)
	for i := range s3N {
		fastest = min(fastest, s3Wait(i))
	}
	return fastest
}

var S3 = &Workload{
	ID:   "S3",
	Name: "io-completion",
	What: "500 calls of 2-20 ms, at most 32 at once, results used as they come",
	Impls: []Impl{
		{"seq", func() uint64 {
			var s uint64
			for i := range s3N {
				s += s3Call(i)
			}
			return s
		}},
		{"errgroup", func() uint64 { return S3Errgroup(func(uint64) {}) }},
		{"gopar", func() uint64 { return S3Gopar(func(uint64) {}) }},
	},
	Targets: []Target{{Impl: "gopar", Against: "errgroup", Limit: 1.05}},
}
