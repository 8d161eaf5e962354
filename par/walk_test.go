package par_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// walker is a walk over 0..n-1 that returns err in place of item fail
// (fail < 0: never), and records how the operation drove it.
type walker struct {
	n, fail int
	err     error
	// wait, if not nil, is waited on before the walk returns err; reached,
	// if not nil, is closed before.
	wait    <-chan struct{}
	reached chan struct{}

	calls   atomic.Int32 // walks started
	running atomic.Int32 // walks that have not returned
	yielded atomic.Int64 // items passed to yield
	stopped atomic.Bool  // a yield returned an error
}

var errWalk = errors.New("the lister failed")

func newWalker(n, fail int) *walker { return &walker{n: n, fail: fail, err: errWalk} }

func (w *walker) walk(yield func(int) error) error {
	w.calls.Add(1)
	if w.running.Add(1) != 1 {
		panic("walk called concurrently")
	}
	defer w.running.Add(-1)
	for i := range w.n {
		if i == w.fail {
			if w.reached != nil {
				close(w.reached)
			}
			if w.wait != nil {
				<-w.wait
			}
			return fmt.Errorf("page %d: %w", i, w.err)
		}
		w.yielded.Add(1)
		if err := yield(i); err != nil {
			w.stopped.Store(true)
			return err
		}
	}
	return nil
}

// seq2 is the walk as an iter.Seq2 for FromSeqErr: the failure is a pair
// with an error.
func (w *walker) seq2(yield func(int, error) bool) {
	err := w.walk(func(i int) error {
		if !yield(i, nil) {
			return errSeqStopped
		}
		return nil
	})
	if err != nil && err != errSeqStopped {
		yield(-1, err)
	}
}

// errSeqStopped is how seq2 stops its walk when yield returns false.
var errSeqStopped = errors.New("the seq's yield returned false")

// walkSources are the two failing sources over a walker.
var walkSources = []struct {
	name string
	of   func(w *walker) par.Iter[int]
}{
	{"FromWalk", func(w *walker) par.Iter[int] { return par.FromWalk(w.walk) }},
	{"FromSeqErr", func(w *walker) par.Iter[int] { return par.FromSeqErr(w.seq2) }},
}

// tryForms are the operations that return an error, each over an
// iterator of ints whose calls succeed.
var tryForms = []struct {
	name string
	run  func(it par.Iter[int]) error
}{
	{"TryForEach", func(it par.Iter[int]) error { return it.TryForEach(func(int) error { return nil }) }},
	{"TryMap", func(it par.Iter[int]) error {
		out, err := par.TryMap(it, func(i int) (int, error) { return i, nil })
		if err != nil && out != nil {
			return fmt.Errorf("TryMap returned %d results with %w", len(out), err)
		}
		return err
	}},
	{"TryFold", func(it par.Iter[int]) error {
		sum, err := par.TryFold(it, func() int { return 0 }, func(a, i int) (int, error) { return a + i, nil }, func(a, b int) int { return a + b })
		if err != nil && sum != 0 {
			return fmt.Errorf("TryFold returned %d with %w", sum, err)
		}
		return err
	}},
	{"TryReduce", func(it par.Iter[int]) error {
		_, err := it.TryReduce(func() int { return 0 }, func(a, b int) (int, error) { return a + b, nil })
		return err
	}},
	{"TryMapInit", func(it par.Iter[int]) error {
		_, err := par.TryMapInit(it, func() int { return 1 }, func(s, i int) (int, error) { return s * i, nil })
		return err
	}},
	{"TryForEachInit", func(it par.Iter[int]) error {
		return par.TryForEachInit(it, func() int { return 1 }, func(int, int) error { return nil })
	}},
	{"TryForEachContext", func(it par.Iter[int]) error {
		return it.TryForEachContext(func(context.Context, int) error { return nil })
	}},
	{"TryMapContext", func(it par.Iter[int]) error {
		_, err := par.TryMapContext(it, func(_ context.Context, i int) (int, error) { return i, nil })
		return err
	}},
	{"ForEachErr", func(it par.Iter[int]) error { return it.ForEachErr(func(int) error { return nil }) }},
	{"MapErr", func(it par.Iter[int]) error {
		// A failed walk keeps what ran: the results of the items read, in
		// order, and an *Unfinished that says where the reading stopped.
		out, err := par.MapErr(it, func(i int) (int, error) { return i, nil })
		var u *par.Unfinished
		inOrder := func() bool {
			for k, i := range out {
				if i != k {
					return false
				}
			}
			return true
		}
		if err != nil && (!errors.As(err, &u) || u.Rest < 0 || u.LeftCount() != 0 || len(out) != u.Rest || !inOrder()) {
			return fmt.Errorf("MapErr returned %d results with %w, want those of the items read", len(out), err)
		}
		return err
	}},
	{"Results", func(it par.Iter[int]) error {
		for _, err := range par.Results(it, func(i int) (int, error) { return i, nil }) {
			if err != nil {
				return err
			}
		}
		return nil
	}},
}

// TestFromWalkItems: a walk that succeeds gives its items in order, as
// FromSeq does, once per operation, and no error.
func TestFromWalkItems(t *testing.T) {
	n := seqN()
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	for _, src := range walkSources {
		for _, blocking := range []int{0, 8} {
			w := newWalker(n, -1)
			it := src.of(w)
			if blocking > 0 {
				it = it.Blocking(blocking)
			}
			if got := it.Collect(); !slices.Equal(got, want) {
				t.Errorf("%s, Blocking %d: Collect gave %d items, want 0..%d in order", src.name, blocking, len(got), n-1)
			}
			if got := it.Count(); got != n {
				t.Errorf("%s, Blocking %d: Count = %d, want %d", src.name, blocking, got, n)
			}
			for _, f := range tryForms {
				if err := f.run(it); err != nil {
					t.Errorf("%s, Blocking %d: %s returned %v", src.name, blocking, f.name, err)
				}
			}
			if it.Err() != nil || w.calls.Load() != int32(2+len(tryForms)) || w.running.Load() != 0 {
				t.Errorf("%s, Blocking %d: Err %v, %d walks (want %d), %d running", src.name, blocking, it.Err(), w.calls.Load(), 2+len(tryForms), w.running.Load())
			}
		}
	}
	if par.FromWalk[int](nil).Count() != 0 || par.FromSeqErr[int](nil).Count() != 0 {
		t.Error("a nil walk or seq gave items")
	}
}

// TestFromWalkError: the walk's error ends every operation that returns
// an error with it, and the plain ones with a result that misses items
// and Err set; once failed, the source yields nothing and is not walked
// again.
func TestFromWalkError(t *testing.T) {
	n := seqN()
	for _, src := range walkSources {
		for _, blocking := range []int{0, 1, 8} {
			for _, f := range tryForms {
				w := newWalker(n, n/2)
				it := src.of(w)
				if blocking > 0 {
					it = it.Blocking(blocking)
				}
				err := f.run(it.Filter(func(int) bool { return true }))
				if !errors.Is(err, errWalk) || !strings.Contains(err.Error(), fmt.Sprint("page ", n/2)) {
					t.Errorf("%s, Blocking %d: %s returned %v, want the walk's error", src.name, blocking, f.name, err)
				}
				if !errors.Is(it.Err(), errWalk) || w.running.Load() != 0 {
					t.Errorf("%s, Blocking %d: %s: Err %v, %d walks running", src.name, blocking, f.name, it.Err(), w.running.Load())
				}
				// Failed for good: the next operation gives the error at once.
				if err := f.run(it); !errors.Is(err, errWalk) || w.calls.Load() != 1 {
					t.Errorf("%s, Blocking %d: %s again returned %v after %d walks", src.name, blocking, f.name, err, w.calls.Load())
				}
			}
			w := newWalker(n, n/2)
			it := src.of(w)
			if blocking > 0 {
				it = it.Blocking(blocking)
			}
			if got := it.Count(); got > n/2 || !errors.Is(it.Err(), errWalk) {
				t.Errorf("%s, Blocking %d: Count over a walk that fails at %d = %d, Err %v", src.name, blocking, n/2, got, it.Err())
			}
			if got := it.Collect(); len(got) != 0 {
				t.Errorf("%s, Blocking %d: Collect after the failure gave %d items", src.name, blocking, len(got))
			}
		}
	}
}

// TestFromWalkErrorDropsItems: once the walk has failed, the items it
// yielded that have not started are dropped; the calls running finish.
func TestFromWalkErrorDropsItems(t *testing.T) {
	const limit, yielded = 4, 200
	for _, src := range walkSources {
		release := make(chan struct{})
		w := &walker{n: 1000, fail: yielded, err: errWalk, wait: release}
		it := src.of(w)
		failedCh := par.Failed(it)
		var started, after atomic.Int32
		var failed atomic.Bool
		err := it.Blocking(limit).TryForEach(func(i int) error {
			if failed.Load() {
				after.Add(1)
			}
			if started.Add(1) == limit {
				close(release) // the walk fails while the first calls run
				<-failedCh
				failed.Store(true)
			}
			time.Sleep(100 * time.Microsecond)
			return nil
		})
		if !errors.Is(err, errWalk) {
			t.Fatalf("%s: TryForEach returned %v", src.name, err)
		}
		if n := started.Load(); n >= yielded {
			t.Errorf("%s: %d calls started of the %d items yielded before the failure: the items not started were not dropped", src.name, n, yielded)
		}
		if after.Load() >= limit {
			t.Errorf("%s: %d calls started after the failure was seen, want fewer than %d", src.name, after.Load(), limit)
		}
	}
}

// TestFromWalkCallErrorWins: a call's error wins over the walk's, which
// comes after the items it yielded.
func TestFromWalkCallErrorWins(t *testing.T) {
	for _, blocking := range []int{0, 4} {
		called := make(chan struct{})
		w := &walker{n: 100, fail: 5, err: errWalk, wait: called, reached: make(chan struct{})}
		it := par.FromWalk(w.walk)
		if blocking > 0 {
			it = it.Blocking(blocking)
		}
		err := it.TryForEach(func(i int) error {
			if i == 3 {
				// The walk has yielded every item, and fails once the
				// call has.
				<-w.reached
				defer close(called)
				return failAt(3)
			}
			return nil
		})
		var at failAt
		if !errors.As(err, &at) || at != 3 {
			t.Errorf("Blocking %d: TryForEach returned %v, want the call's error", blocking, err)
		}
		if !errors.Is(it.Err(), errWalk) {
			t.Errorf("Blocking %d: Err = %v, want the walk's error", blocking, it.Err())
		}
	}
}

// TestFromWalkStops: every early exit stops the walk, whose yield returns
// an error; the walk has returned when the operation does, and no
// goroutine is left.
func TestFromWalkStops(t *testing.T) {
	n := seqN()
	target := n / 10
	before := goroutines()
	for name, run := range map[string]func(it par.Iter[int]){
		"Find": func(it par.Iter[int]) { it.Find(func(i int) bool { return i == target }) },
		"Any":  func(it par.Iter[int]) { it.Any(func(i int) bool { return i == target }) },
		"FindFirst": func(it par.Iter[int]) {
			if v, ok := it.FindFirst(func(i int) bool { return i >= target }); !ok || v != target {
				panic(fmt.Sprint("FindFirst gave ", v, ok))
			}
		},
		"TryForEach": func(it par.Iter[int]) {
			if err := it.TryForEach(func(i int) error {
				if i == target {
					return failAt(i)
				}
				return nil
			}); !errors.As(err, new(failAt)) {
				panic(fmt.Sprint("TryForEach returned ", err))
			}
		},
		"TryFold": func(it par.Iter[int]) {
			_, err := par.TryFold(it, func() int { return 0 }, func(a, i int) (int, error) {
				if i == target {
					return a, failAt(i)
				}
				return a + i, nil
			}, func(a, b int) int { return a + b })
			if !errors.As(err, new(failAt)) {
				panic(fmt.Sprint("TryFold returned ", err))
			}
		},
		"cancel": func(it par.Iter[int]) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err := it.WithContext(ctx).TryForEach(func(i int) error {
				if i == target {
					cancel()
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) {
				panic(fmt.Sprint("cancelled TryForEach returned ", err))
			}
		},
		"panic": func(it par.Iter[int]) {
			v := catch(func() {
				it.ForEach(func(i int) {
					if i == target {
						panic("boom")
					}
				})
			})
			if p, ok := v.(*runtime.Panic); !ok || p.Value != "boom" {
				panic(fmt.Sprint("the callback's panic came back as ", v))
			}
		},
		"break": func(it par.Iter[int]) {
			for i := range it.Values() {
				if i == target {
					break
				}
			}
		},
	} {
		for _, src := range walkSources {
			for _, blocking := range []int{0, 8} {
				w := newWalker(n, -1)
				it := src.of(w)
				if blocking > 0 {
					it = it.Blocking(blocking)
				}
				run(it)
				if !w.stopped.Load() || w.running.Load() != 0 || w.yielded.Load() == int64(n) || it.Err() != nil {
					t.Errorf("%s over %s, Blocking %d: the walk saw the stop %v, %d running, %d of %d yielded, Err %v",
						name, src.name, blocking, w.stopped.Load(), w.running.Load(), w.yielded.Load(), n, it.Err())
				}
			}
		}
	}
	waitGoroutines(t, before, "after the early exits")
}

// TestFromWalkContextStopsThePageInFlight: a walk that waits on a page
// request made with its context, which ends only when the context does,
// lets every way an operation stops return: the operation cancels the
// walk's context as it stops, instead of waiting for the page. The call
// for the last item stops the operation once the walk waits on the page.
// With FromWalk's context-free walk, each of these would wait for ever.
func TestFromWalkContextStopsThePageInFlight(t *testing.T) {
	const n, target = 1000, 999
	errCall := errors.New("the call failed")
	for name, run := range map[string]func(it par.Iter[int], reached <-chan struct{}) error{
		"TryForEach": func(it par.Iter[int], reached <-chan struct{}) error {
			err := it.TryForEach(func(i int) error {
				if i == target {
					<-reached
					return errCall
				}
				return nil
			})
			if !errors.Is(err, errCall) {
				return fmt.Errorf("TryForEach returned %v", err)
			}
			return nil
		},
		"TryMapContext": func(it par.Iter[int], reached <-chan struct{}) error {
			_, err := par.TryMapContext(it, func(ctx context.Context, i int) (int, error) {
				if i == target {
					<-reached
					return 0, errCall
				}
				return i, nil
			})
			if !errors.Is(err, errCall) {
				return fmt.Errorf("TryMapContext returned %v", err)
			}
			return nil
		},
		"Find": func(it par.Iter[int], reached <-chan struct{}) error {
			found := func(i int) bool {
				if i == target {
					<-reached
				}
				return i == target
			}
			if v, ok := it.Find(found); !ok || v != target {
				return fmt.Errorf("Find gave %d, %v", v, ok)
			}
			return nil
		},
		"cancel": func(it par.Iter[int], reached <-chan struct{}) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err := it.WithContext(ctx).TryForEach(func(i int) error {
				if i == target {
					<-reached
					cancel()
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) {
				return fmt.Errorf("cancelled TryForEach returned %v", err)
			}
			return nil
		},
		"break": func(it par.Iter[int], reached <-chan struct{}) error {
			for i := range it.Values() {
				if i == target {
					<-reached
					break
				}
			}
			return nil
		},
	} {
		for _, blocking := range []int{0, 1, 8} {
			var cause atomic.Pointer[error]
			reached := make(chan struct{})
			it := par.FromWalkContext(func(ctx context.Context, yield func(int) error) error {
				for i := range n {
					if err := yield(i); err != nil {
						return err
					}
				}
				close(reached)
				<-ctx.Done() // the next page, which only the context ends
				err := context.Cause(ctx)
				cause.Store(&err)
				return err
			})
			if blocking > 0 {
				it = it.Blocking(blocking)
			}
			result := make(chan error, 1)
			go func() { result <- run(it, reached) }()
			select {
			case err := <-result:
				if err != nil {
					t.Errorf("%s, Blocking %d: %v", name, blocking, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s, Blocking %d: the operation has waited 10 s for the page in flight", name, blocking)
			}
			if c := cause.Load(); c == nil || *c == nil {
				t.Errorf("%s, Blocking %d: the walk's context was not cancelled", name, blocking)
			}
		}
	}
}

// TestFromWalkContextCarriesTheOperationsContext: the walk's context is
// made from WithContext's, with its values, and a walk that finishes on
// its own sees it undone.
func TestFromWalkContextCarriesTheOperationsContext(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "request 7")
	var got any
	var doneEarly bool
	sum := par.Sum(par.FromWalkContext(func(ctx context.Context, yield func(int) error) error {
		for i := range 100_000 {
			if err := yield(i); err != nil {
				return err
			}
		}
		got, doneEarly = ctx.Value(key{}), ctx.Err() != nil
		return nil
	}).WithContext(ctx))
	if sum != 100_000*99_999/2 || got != "request 7" || doneEarly {
		t.Errorf("sum %d, the walk's context held %v, done before the walk returned: %v", sum, got, doneEarly)
	}
}

// goroutines counts the goroutines once the pool has started.
func goroutines() int {
	par.Range(0, 1000).ForEach(func(int) {})
	par.Range(0, 10).Blocking(4).ForEach(func(int) {})
	return goruntime.NumGoroutine()
}

// TestFromWalkPanics: a panic in the walk reaches the caller as it is,
// and a yield called after the walk returned panics.
func TestFromWalkPanics(t *testing.T) {
	v := catch(func() {
		par.FromWalk(func(yield func(int) error) error {
			for i := range 100 {
				if err := yield(i); err != nil {
					return err
				}
			}
			panic("walk boom")
		}).Blocking(4).TryForEach(func(int) error { return nil })
	})
	if v != "walk boom" {
		t.Errorf("a panic in the walk came back as %#v", v)
	}
	var saved func(int) error
	if n := par.FromWalk(func(yield func(int) error) error { saved = yield; return yield(1) }).Count(); n != 1 {
		t.Errorf("Count = %d, want 1", n)
	}
	if v := catch(func() { _ = saved(2) }); v == nil || !strings.Contains(fmt.Sprint(v), "after walk had returned") {
		t.Errorf("a yield after the walk returned: recovered %#v", v)
	}
}

// TestFromWalkContextForms: the walk's error cancels the context of the
// calls of TryForEachContext, which returns it.
func TestFromWalkContextForms(t *testing.T) {
	const limit = 4
	var all atomic.Int32
	release := make(chan struct{})
	w := &walker{n: 100, fail: limit, err: errWalk, wait: release}
	var cancelled atomic.Int32
	err := par.FromWalk(w.walk).Blocking(limit).TryForEachContext(func(ctx context.Context, i int) error {
		if all.Add(1) == limit {
			close(release) // every call waits: the walk fails
		}
		select {
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errWalk) {
				cancelled.Add(1)
			}
			return ctx.Err()
		case <-time.After(10 * time.Second):
			return nil
		}
	})
	if !errors.Is(err, errWalk) {
		t.Errorf("TryForEachContext returned %v, want the walk's error", err)
	}
	if cancelled.Load() != limit {
		t.Errorf("%d of %d calls saw their context cancelled with the walk's error", cancelled.Load(), limit)
	}
}

// TestFromWalkChainAndZip: either side's failure counts.
func TestFromWalkChainAndZip(t *testing.T) {
	for _, failFirst := range []bool{true, false} {
		bad := par.FromWalk(newWalker(1000, 500).walk)
		good := par.Range(0, 1000).Iter
		a, b := good, bad
		if failFirst {
			a, b = bad, good
		}
		if err := par.Chain(a, b).TryForEach(func(int) error { return nil }); !errors.Is(err, errWalk) {
			t.Errorf("Chain, failing side first %v: TryForEach returned %v", failFirst, err)
		}
		if !errors.Is(par.Zip(b, a).Err(), errWalk) {
			t.Errorf("Zip, failing side first %v: Err %v", !failFirst, par.Zip(b, a).Err())
		}
	}
}

// TestReadLinesTryForms: a failed read ends the Try forms with its error.
func TestReadLinesTryForms(t *testing.T) {
	data := []byte(strings.Repeat("a line of text\n", 20_000))
	lines, readErr := par.ReadLinesPiece(&failingReader{r: bytes.NewReader(data), bad: int64(len(data) / 2)}, int64(len(data)), 4096)
	err := lines.TryForEach(func([]byte) error { return nil })
	if err == nil || err != readErr() || err != lines.Err() {
		t.Errorf("TryForEach over a failing read returned %v, readErr %v, Err %v", err, readErr(), lines.Err())
	}
}
