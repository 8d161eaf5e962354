package par_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// produce sends 0, 1, ..., n-1 on a new channel of capacity c from a
// goroutine of its own, then closes it (n < 0: never closes, sends
// forever); stop ends the goroutine early. The goroutine has returned when
// stop does.
func produce(n, c int) (ch chan int, stop func()) {
	ch = make(chan int, c)
	quit, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		defer close(ch)
		for i := 0; n < 0 || i < n; i++ {
			select {
			case ch <- i:
			case <-quit:
				return
			}
		}
	}()
	return ch, func() { close(quit); <-ended }
}

// TestFromChanExactlyOnce: every value received runs once, on 1, 2, 8 and
// 32 workers and with Blocking, and Collect keeps the order of receipt.
func TestFromChanExactlyOnce(t *testing.T) {
	n := 100_000 / race.Scale
	for _, p := range feedPools {
		for _, blocking := range []int{0, 8} {
			on := fmt.Sprintf("%d workers, Blocking(%d)", p.Workers(), blocking)
			ch, stop := produce(n, 16)
			it := par.FromChan(ch).WithPool(p)
			if blocking > 0 {
				it = it.Blocking(blocking)
			}
			got := par.Map(it, func(i int) int { return 3 * i }).Collect()
			stop()
			if len(got) != n {
				t.Fatalf("%s: Collect gave %d values, want %d", on, len(got), n)
			}
			for i, v := range got {
				if v != 3*i {
					t.Fatalf("%s: Collect()[%d] = %d, want %d", on, i, v, 3*i)
				}
			}
		}
	}
}

// TestFromChanStopsWaiting: an operation that ends before the channel is
// closed returns at once, although no value comes and the channel stays
// open: a search that found its item, a break out of Values, an error, and
// a context done while the operation waits on an empty channel.
func TestFromChanStopsWaiting(t *testing.T) {
	for _, blocking := range []int{0, 4} {
		on := fmt.Sprintf("Blocking(%d)", blocking)
		from := func(ch chan int) par.Iter[int] {
			if blocking > 0 {
				return par.FromChan(ch).Blocking(blocking)
			}
			return par.FromChan(ch)
		}
		// Ten values, then the channel stays open and empty.
		ten := func() chan int {
			ch := make(chan int, 10)
			for i := range 10 {
				ch <- i
			}
			return ch
		}

		if !from(ten()).Any(func(i int) bool { return i == 3 }) {
			t.Fatalf("%s: Any did not find 3", on)
		}
		if i, ok := from(ten()).FindFirst(func(i int) bool { return i == 9 }); !ok || i != 9 {
			t.Fatalf("%s: FindFirst = %d, %v", on, i, ok)
		}
		var seen []int
		for v := range from(ten()).Values() {
			seen = append(seen, v)
			if len(seen) == 5 {
				break
			}
		}
		if !slices.Equal(seen, []int{0, 1, 2, 3, 4}) {
			t.Fatalf("%s: Values gave %v before the break", on, seen)
		}
		boom := errors.New("boom")
		if err := from(ten()).TryForEach(func(i int) error {
			if i == 7 {
				return boom
			}
			return nil
		}); err != boom {
			t.Fatalf("%s: TryForEach = %v, want boom", on, err)
		}

		ctx, cancel := context.WithCancel(context.Background())
		var ran atomic.Int64
		err := from(ten()).WithContext(ctx).TryForEach(func(i int) error {
			if ran.Add(1) == 10 {
				cancel() // the operation then waits on the open, empty channel
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) || ran.Load() != 10 {
			t.Fatalf("%s: TryForEach cancelled while waiting = %v after %d calls; want context.Canceled after 10", on, err, ran.Load())
		}
	}
}

// TestFromChanClosedAndDone: over a closed channel whose values all ran,
// a context done at the start of a Try form still gives nil when the
// channel is empty and closed, and the cause when values wait.
func TestFromChanClosedAndDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	empty := make(chan int)
	close(empty)
	if err := par.FromChan(empty).WithContext(ctx).TryForEach(func(int) error { return nil }); err != nil {
		t.Fatalf("a done context over a closed, empty channel: TryForEach = %v, want nil", err)
	}
	full := make(chan int, 3)
	full <- 1
	close(full)
	if err := par.FromChan(full).WithContext(ctx).TryForEach(func(int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("a done context with a value left: TryForEach = %v, want context.Canceled", err)
	}
}

func TestFromChanNil(t *testing.T) {
	mustPanicWith(t, "par.FromChan(nil)", func() { par.FromChan[int](nil) })
}

// TestFromSeq2: the pairs of a Seq2, in its order, each once.
func TestFromSeq2(t *testing.T) {
	xs := make([]string, 10_000)
	for i := range xs {
		xs[i] = fmt.Sprint(i)
	}
	got := par.FromSeq2(slices.All(xs)).Collect()
	for i, p := range got {
		if p.Key != i || p.Value != xs[i] {
			t.Fatalf("pair %d = %v", i, p)
		}
	}
	if len(got) != len(xs) {
		t.Fatalf("%d pairs, want %d", len(got), len(xs))
	}
	m := map[string]int{"a": 1, "b": 2, "c": 3}
	sum := par.Sum(par.Map(par.FromSeq2(maps.All(m)), func(p par.Pair[string, int]) int { return p.Value }))
	if sum != 6 {
		t.Fatalf("sum of the map's values = %d, want 6", sum)
	}
	if n := par.FromSeq2[int, int](nil).Count(); n != 0 {
		t.Fatalf("FromSeq2(nil) has %d items", n)
	}
}
