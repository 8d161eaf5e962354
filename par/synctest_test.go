//go:build go1.25

package par_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// TestBlockingFormsInSynctest: the forms that run callbacks on goroutines
// of their own (TryScope, and Values in completion order under Blocking)
// work inside a testing/synctest bubble: the sleeps advance fake time, the
// results come in completion order, and every goroutine has ended when the
// bubble does.
func TestBlockingFormsInSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		err := par.TryScope(context.Background(), 4, func(ctx context.Context, g *par.TryGroup) error {
			for range 10 {
				g.Go(func(context.Context, *par.TryGroup) error { time.Sleep(time.Second); return nil })
			}
			return nil
		})
		// 10 tasks of 1 s, 4 at once: 3 s of fake time.
		if err != nil || time.Since(start) != 3*time.Second {
			t.Fatalf("TryScope = %v after %v, want nil after 3s", err, time.Since(start))
		}
		var order []int
		for i := range par.Map(par.Range(0, 4).Blocking(4), func(i int) int {
			time.Sleep(time.Duration(4-i) * time.Second)
			return i
		}).Unordered().Values() {
			order = append(order, i)
		}
		if len(order) != 4 || order[0] != 3 || order[3] != 0 {
			t.Fatalf("completion order %v, want [3 2 1 0]", order)
		}
	})
}

// TestAdaptersInSynctest: the index adapters over streams, which run the
// steps before them on a goroutine of their own, complete inside a
// testing/synctest bubble, with a Take that stops an endless stream early,
// and leave no goroutine behind when the bubble ends.
func TestAdaptersInSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		endless := func(yield func(int) bool) {
			for i := 0; yield(i); i++ {
			}
		}
		odd := func(x int) bool { return x%2 == 1 }
		got := par.FromSeq(endless).Filter(odd).Take(100).Skip(10).Collect()
		if len(got) != 90 || got[0] != 21 || got[89] != 199 {
			t.Fatalf("Filter.Take(100).Skip(10) over an endless seq: %d items, want 90 from 21 to 199", len(got))
		}
		ch := make(chan int)
		go func() {
			defer close(ch)
			for i := range 50 {
				time.Sleep(time.Millisecond)
				ch <- i
			}
		}()
		pairs := par.Enumerate(par.FromChan(ch).Chain(par.Slice([]int{50, 51}))).Collect()
		if len(pairs) != 52 || pairs[51].Key != 51 || pairs[51].Value != 51 {
			t.Fatalf("Enumerate(FromChan.Chain) = %d pairs, want 52 with positions", len(pairs))
		}
	})
}

// TestBlockingDecidedWhileTakeWaits: under Blocking, a search over an open
// channel returns once a callback finds its item, while another goroutine
// waits on the channel for the next value (which never comes). The bubble
// holds the callback until that goroutine waits, so the interleaving that
// once hung (the waiting take held the others back) happens every run. A
// hang fails the test after a minute of real time.
func TestBlockingDecidedWhileTakeWaits(t *testing.T) {
	searches := map[string]func(it par.Iter[int], gate <-chan struct{}) bool{
		"Any": func(it par.Iter[int], gate <-chan struct{}) bool {
			return it.Any(func(i int) bool {
				if i == 1 {
					<-gate
				}
				return i == 1
			})
		},
		"FindFirst": func(it par.Iter[int], gate <-chan struct{}) bool {
			v, ok := it.FindFirst(func(i int) bool {
				if i == 1 {
					<-gate
				}
				return i == 1
			})
			return ok && v == 1
		},
		"TryForEach": func(it par.Iter[int], gate <-chan struct{}) bool {
			err := it.TryForEach(func(i int) error {
				if i == 1 {
					<-gate
					return errors.New("one")
				}
				return nil
			})
			return err != nil && err.Error() == "one"
		},
		"ForEach, runtime.Goexit": func(it par.Iter[int], gate <-chan struct{}) bool {
			exited := make(chan bool, 2)
			go func() {
				defer func() { exited <- true }() // runs when Goexit reaches this goroutine
				it.ForEach(func(i int) {
					if i == 1 {
						<-gate
						runtime.Goexit()
					}
				})
				exited <- false
			}()
			return <-exited
		},
	}
	for name, search := range searches {
		ended := make(chan bool, 1)
		go func() {
			synctest.Test(t, func(t *testing.T) {
				ch := make(chan int, 2)
				ch <- 0
				ch <- 1 // then the channel stays open and empty
				gate := make(chan struct{})
				found := make(chan bool, 1)
				go func() { found <- search(par.FromChan(ch).Blocking(2), gate) }()
				synctest.Wait() // one goroutine at the gate, the other on the channel
				close(gate)
				if !<-found {
					t.Errorf("%s under Blocking(2) over an open channel: the item was not found", name)
				}
			})
			ended <- true
		}()
		select {
		case <-ended:
		case <-time.After(time.Minute):
			t.Fatalf("%s under Blocking(2) over an open channel did not return after its callback decided it", name)
		}
	}
}
