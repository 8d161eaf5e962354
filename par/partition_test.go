package par_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// loopPartition is the sequential partition the parallel one must match.
func loopPartition[T any](xs []T, pred func(T) bool) (yes, no []T) {
	yes, no = []T{}, []T{}
	for _, x := range xs {
		if pred(x) {
			yes = append(yes, x)
		} else {
			no = append(no, x)
		}
	}
	return yes, no
}

func TestPartition(t *testing.T) {
	for _, n := range sizes {
		xs := make([]uint64, n)
		for i := range xs {
			xs[i] = mixInt(i)
		}
		for name, pred := range map[string]func(uint64) bool{
			"third": func(x uint64) bool { return x%3 == 0 },
			"none":  func(uint64) bool { return false },
			"all":   func(uint64) bool { return true },
		} {
			wantYes, wantNo := loopPartition(xs, pred)
			for form, it := range map[string]par.Iter[uint64]{
				"Slice":   par.Slice(xs),
				"Map":     par.Map(par.Range(0, n), mixInt),
				"Filter":  par.Slice(xs).Filter(func(uint64) bool { return true }),
				"FromSeq": par.FromSeq(slices.Values(xs)),
				"FlatMap": par.FlatMap(par.Slice(xs), func(x uint64) []uint64 { return []uint64{x} }),
			} {
				yes, no := it.Partition(pred)
				if yes == nil || no == nil || !slices.Equal(yes, wantYes) || !slices.Equal(no, wantNo) {
					t.Fatalf("n=%d %s %s: got %d and %d items (nil: %v %v), want %d and %d in source order",
						n, name, form, len(yes), len(no), yes == nil, no == nil, len(wantYes), len(wantNo))
				}
			}
		}
	}
}

func TestPartitionBadInput(t *testing.T) {
	mustPanicWith(t, "par.Partition was given a nil function", func() { par.Range(0, 3).Partition(nil) })
	boom := errors.New("boom")
	for _, n := range []int{10, 1 << 20} {
		pv := func() (r any) {
			defer func() { r = recover() }()
			par.Range(0, n).Partition(func(i int) bool {
				if i == n-2 {
					panic(boom)
				}
				return i%2 == 0
			})
			return nil
		}()
		if p, ok := pv.(*runtime.Panic); !ok || !errors.Is(p, boom) {
			t.Fatalf("n=%d: recovered %T %v, want a *runtime.Panic of boom", n, pv, pv)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	yes, no := par.Range(0, 1000).WithContext(ctx).Partition(func(int) bool { t.Error("ran after cancel"); return true })
	if len(yes) != 0 || len(no) != 0 || yes == nil || no == nil {
		t.Fatalf("a done context gave %v and %v, want two empty slices", yes, no)
	}
	p, err := runtime.New(2)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	mustPanicWith(t, "closed", func() { par.Range(0, 10).WithPool(p).Partition(func(int) bool { return true }) })
}

// TestPartitionForms: over a range of ints and a slice (written straight
// into place) and over a mapped range (appended per run), on 1, 2, 3 and 8
// workers, both parts come in source order; and a context cancelled
// midway leaves the parts of a prefix of the items, each of which ran.
func TestPartitionForms(t *testing.T) {
	n := 50_000
	odd := func(i int) bool { return i%3 == 1 }
	xs := make([]int, n)
	for i := range xs {
		xs[i] = i
	}
	wantYes, wantNo := loopPartition(xs, odd)
	for _, p := range scanPools() {
		for name, it := range map[string]par.Iter[int]{
			"Range": par.Range(0, n).Iter,
			"Slice": par.Slice(xs),
			"Map":   par.Map(par.Range(0, n), func(i int) int { return i }),
		} {
			yes, no := it.WithPool(p).Partition(odd)
			if !slices.Equal(yes, wantYes) || !slices.Equal(no, wantNo) {
				t.Fatalf("%s on %d workers: parts differ from the loop's", name, p.Workers())
			}
			ctx, cancel := context.WithCancel(context.Background())
			var ran atomic.Int64
			yes, no = it.WithPool(p).WithContext(ctx).Partition(func(i int) bool {
				ran.Add(1)
				if i == n/3 {
					cancel()
				}
				return odd(i)
			})
			cancel()
			// The parts are those of a prefix of the items, all of which
			// ran (Iter.WithContext).
			prefix := len(yes) + len(no)
			if int64(prefix) > ran.Load() {
				t.Fatalf("%s on %d workers, cancelled: %d+%d items in the parts, %d ran", name, p.Workers(), len(yes), len(no), ran.Load())
			}
			if py, pn := loopPartition(xs[:prefix], odd); !slices.Equal(yes, py) || !slices.Equal(no, pn) {
				t.Fatalf("%s on %d workers, cancelled: the parts are not those of the first %d items", name, p.Workers(), prefix)
			}
		}
	}
}
