package benchmarks

import (
	"errors"
	"iter"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/par"
)

func init() { Streams = append(Streams, S6, S7) }

// S6: S1's word count as a new user writes it: the text is a string, its
// lines come from strings.Lines, its words from strings.Fields (an
// allocating callback), and the counts go into a map per accumulator, in
// the default (ordered) Fold, an Unordered one and CountBy, over FromSeq
// and over LinesString. The hand-written fan-out sends batches of
// s6Batch lines on a channel to GOMAXPROCS workers with a map each; its
// floor form calls the key function through a func value per word, as
// CountBy must.

// s6Batch is the hand-written fan-out's batch: lines sent on its channel at
// a time.
const s6Batch = 1024

// s6Text is S1's text as one string.
var s6Text = sync.OnceValue(func() string { return string(streamText()) })

// fieldsInto adds the words of line to m: the loop a new user writes.
func fieldsInto(m map[string]int, line string) map[string]int {
	for _, w := range strings.Fields(line) {
		m[w]++
	}
	return m
}

func newCounts() map[string]int { return map[string]int{} }

// fieldsBy is fieldsInto with each word's key through a func value, as
// CountBy calls it.
func fieldsBy(m map[string]int, line string) map[string]int {
	for _, w := range strings.Fields(line) {
		m[wordKey(w)]++
	}
	return m
}

// s6Static is S6's hand-written fan-out; into counts a line into a map.
func s6Static(text string, into func(map[string]int, string) map[string]int) map[string]int {
	p := runtime.GOMAXPROCS(0)
	batches := make(chan []string, 4*p)
	go func() {
		defer close(batches)
		batch := make([]string, 0, s6Batch)
		for l := range strings.Lines(text) {
			if batch = append(batch, l); len(batch) == s6Batch {
				batches <- batch
				batch = make([]string, 0, s6Batch)
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
			m := newCounts()
			for batch := range batches {
				for _, l := range batch {
					m = into(m, l)
				}
			}
			maps[k] = m
		})
	}
	wg.Wait()
	return mergeAllWords(maps)
}

func word(w string) string { return w }

var S6 = &Workload{
	ID:   "S6",
	Name: "words-natural",
	What: "word count of S1's 24 MB text as a string: strings.Lines, strings.Fields, a map per accumulator",
	Impls: []Impl{
		{"seq", func() uint64 {
			m := newCounts()
			for l := range strings.Lines(s6Text()) {
				m = fieldsInto(m, l)
			}
			return countsSum(m)
		}},
		{"static", func() uint64 { return countsSum(s6Static(s6Text(), fieldsInto)) }},
		// The floor of the forms that call a key function per word (CountBy):
		// the hand-written fan-out calling it through a func value.
		{"floor", func() uint64 { return countsSum(s6Static(s6Text(), fieldsBy)) }},
		{"gopar", func() uint64 {
			return countsSum(par.Fold(par.FromSeq(strings.Lines(s6Text())), newCounts, fieldsInto, mergeWords))
		}},
		{"gopar-unordered", func() uint64 {
			return countsSum(par.Fold(par.FromSeq(strings.Lines(s6Text())).Unordered(), newCounts, fieldsInto, mergeWords))
		}},
		{"gopar-countby", func() uint64 {
			return countsSum(par.CountBy(par.FlatMap(par.FromSeq(strings.Lines(s6Text())), strings.Fields), word))
		}},
		{"gopar-lines", func() uint64 {
			return countsSum(par.Fold(par.LinesString(s6Text()), newCounts, fieldsInto, mergeWords))
		}},
		{"gopar-lines-countby", func() uint64 {
			return countsSum(par.CountBy(par.FlatMap(par.LinesString(s6Text()), strings.Fields), word))
		}},
	},
	Targets: []Target{
		{Impl: "gopar", Against: "static", Limit: 1.15},
		{Impl: "gopar-unordered", Against: "static", Limit: 1.10},
		{Impl: "gopar-unordered", Against: "gopar", Limit: 1.0},
		{Impl: "gopar-countby", Against: "static", Limit: 1.10},
		{Impl: "gopar-countby", Against: "floor", Limit: 1.05},
		{Impl: "gopar-lines", Against: "static", Limit: 1.10},
		{Impl: "gopar-lines-countby", Against: "static", Limit: 1.10},
		{Impl: "gopar-lines-countby", Against: "floor", Limit: 1.05},
	},
}

// S7: a paged, callback-style lister (the shape of many SDK listers and
// walkers: list(func(page) error) error) of s7Pages pages of s7PageItems
// items, each page after a wait of s7PageWait, and about 20 us of CPU work
// per item (S2's), adapted to an iter.Seq by yielding inside the callback.

const (
	s7Pages     = 200
	s7PageItems = 100
	s7PageWait  = 2 * time.Millisecond
)

// errStopListing is how the adapter stops the lister when the loop over
// the seq breaks.
var errStopListing = errors.New("benchmarks: listing stopped")

// s7List calls page for each page, in order, after the page's wait; it
// stops at the first error page returns, and returns it.
func s7List(page func([]uint64) error) error {
	items := make([]uint64, s7PageItems)
	for p := range s7Pages {
		time.Sleep(s7PageWait)
		for i := range items {
			items[i] = uint64(p*s7PageItems + i)
		}
		if err := page(items); err != nil {
			return err
		}
	}
	return nil
}

// s7Items adapts s7List to an iter.Seq, as a user writes it.
func s7Items() iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		_ = s7List(func(page []uint64) error {
			for _, it := range page {
				if !yield(it) {
					return errStopListing
				}
			}
			return nil
		})
	}
}

var S7 = &Workload{
	ID:   "S7",
	Name: "paged-lister",
	What: "200 pages of 100 items from a callback lister, 2 ms a page, then 20 us of CPU work per item",
	Impls: []Impl{
		{"seq", func() uint64 {
			var s uint64
			_ = s7List(func(page []uint64) error {
				for _, it := range page {
					s += s2Work(it)
				}
				return nil
			})
			return s
		}},
		// The hand-written fan-out: the lister on a goroutine of its own,
		// sending each item on a buffered channel, GOMAXPROCS workers with
		// a sum each.
		{"static", func() uint64 {
			p := runtime.GOMAXPROCS(0)
			items := make(chan uint64, s7PageItems)
			go func() {
				defer close(items)
				_ = s7List(func(page []uint64) error {
					for _, it := range page {
						items <- it
					}
					return nil
				})
			}()
			return s2Workers(p, items)
		}},
		{"gopar", func() uint64 { return par.Sum(par.Map(par.FromSeq(s7Items()), s2Work)) }},
	},
	Targets: []Target{{Impl: "gopar", Against: "static", Limit: 1.10}},
}
