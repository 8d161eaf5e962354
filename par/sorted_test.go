package par_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// readSorted reads s whole: its entries in a map, checking that they come
// in key order, each key once.
func readSorted[K cmp.Ordered, V any](t *testing.T, what string, s *par.Sorted[K, V]) map[K]V {
	t.Helper()
	got := map[K]V{}
	first, last := true, *new(K)
	for k, n := range s.All() {
		if !first && cmp.Compare(last, k) >= 0 {
			t.Fatalf("%s: key %v after %v: not in key order, or twice", what, k, last)
		}
		first, last = false, k
		got[k] = n
	}
	if err := s.Err(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return got
}

// noFiles fails t if dir holds anything.
func noFiles(t *testing.T, what, dir string) {
	t.Helper()
	if left, err := os.ReadDir(dir); err != nil || len(left) > 0 {
		t.Fatalf("%s left %d entries in %s (%v)", what, len(left), dir, err)
	}
}

// TestCountBySortedMatchesCountBy: through every kind of source, on 1 to 8
// workers, with no budget, with one that everything fits, and with budgets
// that force a run every few keys and more runs than one merge takes,
// CountBySorted gives CountBy's counts in key order, and leaves no file.
func TestCountBySortedMatchesCountBy(t *testing.T) {
	n := 20_000 // not scaled under -race: a goroutine spills past spillMin bytes
	xs, key := keyedItems(n, 1<<40, uint64(n/3))
	want := countModel(xs, key)
	dir := t.TempDir()
	for _, p := range scanPools()[1:] {
		for _, src := range keyedSources {
			for _, budget := range []int64{0, 1 << 30, 64 << 10, 16 << 10, 1} {
				what := fmt.Sprintf("%s on %d workers, budget %d", src.name, p.Workers(), budget)
				var st par.Stats
				it := src.make(p, xs).WithTempDir(dir, 0).WithStats(&st)
				if budget > 0 {
					it = it.WithMemory(budget)
				}
				if got := readSorted(t, what, par.CountBySorted(it, key)); !maps.Equal(got, want) {
					t.Fatalf("%s: %d keys, CountBy %d, and they differ", what, len(got), len(want))
				}
				if spills := budget > 0 && budget < 1<<30; spills != (st.Spilled > 0 && st.SpillRuns > 0) {
					t.Fatalf("%s: %d bytes spilled in %d runs", what, st.Spilled, st.SpillRuns)
				}
				noFiles(t, what, dir)
			}
		}
	}
}

// TestCountBySortedKeys: string keys (whose bytes count against the
// budget), floats with NaNs and signed zeros, and an empty input.
func TestCountBySortedKeys(t *testing.T) {
	dir := t.TempDir()
	words := make([]string, 20_000/race.Scale)
	for i := range words {
		words[i] = strconv.Itoa(i % 4999)
	}
	for _, budget := range []int64{1 << 30, 8 << 10} {
		it := par.Slice(words).WithMemory(budget).WithTempDir(dir, 0)
		got := readSorted(t, "words", par.CountBySorted(it, func(w string) string { return w }))
		if want := par.Counts(par.Slice(words)); !maps.Equal(got, want) {
			t.Fatalf("budget %d: %d words, Counts %d, and they differ", budget, len(got), len(want))
		}
		noFiles(t, "words", dir)
	}
	nan := func() float64 { var z float64; return z / z }
	fs := []float64{1, nan(), -1, 0, nan(), 2, 1}
	fs = append(fs, -fs[3]*0) // -0, one key with 0
	for _, budget := range []int64{1 << 30, 1} {
		var keys []float64
		var counts []int
		s := par.CountBySorted(par.Slice(fs).WithMemory(budget).WithTempDir(dir, 0), func(f float64) float64 { return f })
		for k, n := range s.All() {
			keys, counts = append(keys, k), append(counts, n)
		}
		if s.Err() != nil || len(keys) != 6 || keys[0] == keys[0] || keys[1] == keys[1] ||
			!slices.Equal(keys[2:], []float64{-1, 0, 1, 2}) || !slices.Equal(counts, []int{1, 1, 1, 2, 2, 1}) {
			t.Fatalf("budget %d: floats gave %v %v (%v); want two NaNs, -1, 0 twice, 1 twice, 2", budget, keys, counts, s.Err())
		}
	}
	s := par.CountBySorted(par.Slice([]int{}), func(x int) int { return x })
	for range s.All() {
		t.Fatal("an empty input gave an entry")
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
}

// TestCountBySortedLeavesNoFiles: a panic in key, a Goexit in key, a
// panic and a break in the loop body, a cancelled context, and a cap on
// disk use each end the operation with its files removed, and the right
// outcome: the *Panic, the Goexit, the body's panic, the break, the
// context's cause, an error naming the cap.
func TestCountBySortedLeavesNoFiles(t *testing.T) {
	dir := t.TempDir()
	n := 20_000 // not scaled under -race: a goroutine spills past spillMin bytes
	items := func() par.Ints { return par.Range(0, n).WithMemory(1).WithTempDir(dir, 0) }
	id := func(i int) int { return i }
	// late says whether this is the call of key that three quarters of the
	// items have been counted before, and checks that runs are on disk by
	// then: the cleanup has files to remove.
	var calls atomic.Int64
	late := func() bool {
		if calls.Add(1) != int64(3*n/4) {
			return false
		}
		if sub, _ := os.ReadDir(dir); len(sub) != 1 {
			t.Errorf("no spill directory under %s after %d items", dir, 3*n/4)
		} else if runs, _ := os.ReadDir(filepath.Join(dir, sub[0].Name())); len(runs) == 0 {
			t.Errorf("no run on disk after %d items", 3*n/4)
		}
		return true
	}

	func() {
		defer func() {
			var p *par.Panic
			if r := recover(); !errors.As(asError(r), &p) {
				t.Errorf("a panic in key gave %v, want a *Panic", r)
			}
		}()
		calls.Store(0)
		for range par.CountBySorted(items(), func(i int) int {
			if late() {
				panic("boom")
			}
			return i
		}).All() {
		}
	}()
	noFiles(t, "a panic in key", dir)

	done := make(chan bool)
	go func() {
		defer close(done)
		calls.Store(0)
		for range par.CountBySorted(items(), func(i int) int {
			if late() {
				runtime.Goexit()
			}
			return i
		}).All() {
		}
		done <- true
	}()
	if <-done {
		t.Error("a Goexit in key returned")
	}
	noFiles(t, "a Goexit in key", dir)

	func() {
		defer func() {
			if r := recover(); r != "body" {
				t.Errorf("a panic in the loop body gave %v", r)
			}
		}()
		for range par.CountBySorted(items(), id).All() {
			panic("body")
		}
	}()
	noFiles(t, "a panic in the loop body", dir)

	s := par.CountBySorted(items(), id)
	seen := 0
	for range s.All() {
		if seen++; seen == 3 {
			break
		}
	}
	if seen != 3 || s.Err() != nil {
		t.Errorf("a break after 3 entries: %d entries, err %v", seen, s.Err())
	}
	noFiles(t, "a break", dir)

	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("stop")
	calls.Store(0)
	s = par.CountBySorted(items().WithContext(ctx), func(i int) int {
		if late() {
			cancel(cause)
		}
		return i
	})
	for range s.All() {
		t.Fatal("a cancelled count gave an entry")
	}
	if !errors.Is(s.Err(), cause) {
		t.Errorf("a cancelled count: %v, want the cause", s.Err())
	}
	noFiles(t, "a cancelled context", dir)

	s = par.CountBySorted(items().WithTempDir(dir, 1000), id)
	for range s.All() {
		t.Fatal("a count past the disk cap gave an entry")
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "cap of 1000 bytes") || !strings.Contains(err.Error(), "WithTempDir") {
		t.Errorf("a count past the disk cap: %v, want an error naming the cap and WithTempDir", err)
	}
	noFiles(t, "a count past the cap", dir)
}

func TestCountBySortedBadInput(t *testing.T) {
	for what, f := range map[string]func(){
		"nil key":         func() { par.CountBySorted[int, int](par.Range(0, 1), nil) },
		"nil kv":          func() { par.ReduceByKeySorted[int, int, int](par.Range(0, 1), nil, func(a, b int) int { return a }) },
		"nil op":          func() { par.ReduceByKeySorted(par.Range(0, 1), func(x int) (int, int) { return x, x }, nil) },
		"WithMemory(0)":   func() { par.Range(0, 1).WithMemory(0) },
		"WithTempDir(-1)": func() { par.Range(0, 1).WithTempDir("", -1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", what)
				}
			}()
			f()
		}()
	}
}

// TestMemoryBudgetDefault: with no WithMemory the budget is half of the
// runtime's memory limit, none with no limit; WithMemory wins over it.
func TestMemoryBudgetDefault(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	debug.SetMemoryLimit(math.MaxInt64)
	if b := par.MemoryBudget(par.Range(0, 1)); b != 0 {
		t.Errorf("no limit: a budget of %d bytes, want none", b)
	}
	debug.SetMemoryLimit(3 << 30)
	if b := par.MemoryBudget(par.Range(0, 1)); b != 3<<29 {
		t.Errorf("GOMEMLIMIT 3 GiB: a budget of %d bytes, want %d", b, 3<<29)
	}
	if b := par.MemoryBudget(par.Range(0, 1).WithMemory(12345)); b != 12345 {
		t.Errorf("WithMemory(12345) under a limit: a budget of %d bytes", b)
	}
	if b := par.MemoryBudget(par.Slice([]int{1}).WithTempDir("", 7)); b != 3<<29 {
		t.Errorf("WithTempDir alone: a budget of %d bytes, want the limit's half", b)
	}
}

// total is a value that goes through encoding/gob in a run.
type total struct{ N, Sum int }

// TestReduceByKeySortedMatchesReduceByKey: with a budget that spills and
// without, ReduceByKeySorted gives ReduceByKey's per-key values in key
// order, for a basic value (its own codec) and a struct (gob); a struct
// that gob cannot write ends it with an error, and no file.
func TestReduceByKeySortedMatchesReduceByKey(t *testing.T) {
	n := 20_000 // not scaled under -race: a goroutine spills past spillMin bytes
	xs, key := keyedItems(n, 1<<40, uint64(n/3))
	dir := t.TempDir()
	sum := func(a, b int) int { return a + b }
	kvInt := func(x int) (int, int) { return key(x), x }
	kvTot := func(x int) (int, total) { return key(x), total{1, x} }
	merge := func(a, b total) total { return total{a.N + b.N, a.Sum + b.Sum} }
	wantInt := par.ReduceByKey(par.Slice(xs), kvInt, sum)
	wantTot := par.ReduceByKey(par.Slice(xs), kvTot, merge)
	for _, p := range scanPools()[1:] {
		for _, budget := range []int64{0, 16 << 10} {
			what := fmt.Sprintf("%d workers, budget %d", p.Workers(), budget)
			var st par.Stats
			it := par.Slice(xs).WithPool(p).WithTempDir(dir, 0).WithStats(&st)
			if budget > 0 {
				it = it.WithMemory(budget)
			}
			if got := readSorted(t, what, par.ReduceByKeySorted(it, kvInt, sum)); !maps.Equal(got, wantInt) {
				t.Fatalf("%s: ints differ from ReduceByKey's", what)
			}
			if (budget > 0) != (st.SpillRuns > 0) {
				t.Fatalf("%s: %d runs", what, st.SpillRuns)
			}
			got := map[int]total{}
			s := par.ReduceByKeySorted(it, kvTot, merge)
			for k, v := range s.All() {
				got[k] = v
			}
			if s.Err() != nil || !maps.Equal(got, wantTot) {
				t.Fatalf("%s: structs differ from ReduceByKey's (%v)", what, s.Err())
			}
			noFiles(t, what, dir)
		}
	}
	type hidden struct{ n int } // no exported field: gob refuses it
	s := par.ReduceByKeySorted(par.Slice(xs).WithMemory(1).WithTempDir(dir, 0),
		func(x int) (int, hidden) { return key(x), hidden{1} }, func(a, b hidden) hidden { return hidden{a.n + b.n} })
	for range s.All() {
		t.Fatal("a value gob cannot write gave an entry")
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "ReduceByKeySorted") || !strings.Contains(err.Error(), "WithMemory") {
		t.Fatalf("a value gob cannot write: %v, want an error naming the operation and the budget", err)
	}
	noFiles(t, "a value gob cannot write", dir)
}

// TestGroupBySortedMatchesGroupBy: on 1 to 8 workers, with no budget and
// with one that forces many runs, GroupBySorted gives GroupBy's groups in
// key order, each group's items in some order, and leaves no file.
func TestGroupBySortedMatchesGroupBy(t *testing.T) {
	n := 20_000 // not scaled under -race: a goroutine spills past spillMin bytes
	xs, key := keyedItems(n, 1<<40, uint64(n/3))
	skey := func(x int) string { return strconv.Itoa(key(x)) }
	want := par.GroupBy(par.Slice(xs), skey)
	dir := t.TempDir()
	for _, p := range scanPools()[1:] {
		for _, budget := range []int64{0, 1 << 30, 32 << 10, 1} {
			what := fmt.Sprintf("%d workers, budget %d", p.Workers(), budget)
			var st par.Stats
			it := par.FromSeq(slices.Values(xs)).WithPool(p).WithTempDir(dir, 0).WithStats(&st)
			if budget > 0 {
				it = it.WithMemory(budget)
			}
			got := readSorted(t, what, par.GroupBySorted(it, skey))
			if len(got) != len(want) {
				t.Fatalf("%s: %d groups, GroupBy %d", what, len(got), len(want))
			}
			for k, g := range want {
				if h := slices.Sorted(slices.Values(got[k])); !slices.Equal(h, slices.Sorted(slices.Values(g))) {
					t.Fatalf("%s: group %s holds %v, GroupBy's %v", what, k, h, g)
				}
			}
			if spills := budget > 0 && budget < 1<<30; spills != (st.SpillRuns > 0) {
				t.Fatalf("%s: %d runs", what, st.SpillRuns)
			}
			noFiles(t, what, dir)
		}
	}
}

// TestGroupBySortedCountsItems: a group is priced at its items, so groups
// of large items spill under a budget that their keys alone fit.
func TestGroupBySortedCountsItems(t *testing.T) {
	type rec struct{ A [256]byte } // 256 bytes an item
	xs := make([]int, 4096)
	for i := range xs {
		xs[i] = i
	}
	var st par.Stats
	// 2,048 keys of 2 items: 16 KB of keys, 1 MB of items.
	s := par.GroupBySorted(par.Map(par.Slice(xs).WithMemory(512<<10).WithTempDir(t.TempDir(), 0).WithStats(&st),
		func(i int) rec { var r rec; r.A[0] = byte(i); r.A[1] = byte(i >> 8); return r }),
		func(r rec) int { return int(r.A[1])<<7 | int(r.A[0])&127 })
	got := readSorted(t, "groups of 256-byte items", s)
	if len(got) != 2048 || st.SpillRuns == 0 {
		t.Fatalf("%d groups in %d runs; want 2048 groups, and runs", len(got), st.SpillRuns)
	}
}

// TestDistinctSortedMatchesDistinct: DistinctSorted's keys are Distinct's
// items, sorted, with and without spilling; Keys and All agree.
func TestDistinctSortedMatchesDistinct(t *testing.T) {
	n := 20_000
	xs, key := keyedItems(n, 1<<40, uint64(n/3))
	ks := par.Map(par.Slice(xs), key).Collect()
	want := slices.Sorted(slices.Values(par.Distinct(par.Slice(ks))))
	dir := t.TempDir()
	for _, budget := range []int64{0, 16 << 10, 1} {
		what := fmt.Sprintf("budget %d", budget)
		it := par.Slice(ks).WithTempDir(dir, 0)
		if budget > 0 {
			it = it.WithMemory(budget)
		}
		d := par.DistinctSorted(it)
		if got := slices.Collect(d.Keys()); !slices.Equal(got, want) || d.Err() != nil {
			t.Fatalf("%s: %d keys, Distinct %d (%v)", what, len(got), len(want), d.Err())
		}
		if got := readSorted(t, what, d); len(got) != len(want) {
			t.Fatalf("%s: All gave %d keys, Keys %d", what, len(got), len(want))
		}
		noFiles(t, what, dir)
	}
}

// TestEntrySize: a size function prices what an entry points to, so values
// that the default sees as a slice header spill under a budget, and the
// function sees each value as it changes.
func TestEntrySize(t *testing.T) {
	xs := make([]int, 20_000)
	for i := range xs {
		xs[i] = i
	}
	// 4,096 keys, each with about 5 values of 100 ints: 455 KB as the
	// default prices them, 16 MB in fact.
	kv := func(x int) (int, []int) { v := make([]int, 100); v[0] = x; return x % 4096, v }
	cat := func(a, b []int) []int { return append(a, b...) }
	dir := t.TempDir()
	pool := newPool(t, 2)
	run := func(opts ...par.SortedOption[int, []int]) (par.Stats, map[int][]int) {
		var st par.Stats
		it := par.Slice(xs).WithPool(pool).WithMemory(4<<20).WithTempDir(dir, 0).WithStats(&st)
		return st, readSorted(t, "ReduceByKeySorted", par.ReduceByKeySorted(it, kv, cat, opts...))
	}
	if st, got := run(); st.SpillRuns != 0 || len(got) != 4096 {
		t.Fatalf("with no size: %d runs, %d keys; want none, 4096", st.SpillRuns, len(got))
	}
	var calls atomic.Int64
	st, got := run(par.EntrySize(func(_ int, v []int) int64 { calls.Add(1); return int64(cap(v)) * 8 }))
	if st.SpillRuns == 0 || len(got) != 4096 || calls.Load() < int64(len(xs)) {
		t.Fatalf("with a size: %d runs, %d keys, %d calls; want runs, 4096 keys, a call an item", st.SpillRuns, len(got), calls.Load())
	}
	for k, v := range got {
		if len(v) != 100*((len(xs)-k+4095)/4096) {
			t.Fatalf("key %d: %d values", k, len(v))
		}
	}
	noFiles(t, "EntrySize", dir)
}

// TestEntryCodec: the user's codec writes and reads the runs, including a
// value that gob refuses; a dec that fails ends the range with its error.
func TestEntryCodec(t *testing.T) {
	type hidden struct{ n int } // no exported field: gob refuses it
	xs := make([]int, 20_000)
	for i := range xs {
		xs[i] = i
	}
	kv := func(x int) (string, hidden) { return strconv.Itoa(x % 5000), hidden{1} }
	op := func(a, b hidden) hidden { return hidden{a.n + b.n} }
	enc := func(buf []byte, k string, v hidden) []byte {
		return strconv.AppendInt(append(append(buf, k...), ' '), int64(v.n), 10)
	}
	var decoded atomic.Int64
	dec := func(data []byte) (string, hidden, error) {
		decoded.Add(1)
		k, n, ok := strings.Cut(string(data), " ")
		v, err := strconv.Atoi(n)
		if !ok || err != nil {
			return "", hidden{}, fmt.Errorf("bad entry %q", data)
		}
		return k, hidden{v}, nil
	}
	dir := t.TempDir()
	it := par.Slice(xs).WithMemory(1).WithTempDir(dir, 0)
	got := readSorted(t, "EntryCodec", par.ReduceByKeySorted(it, kv, op, par.EntryCodec(enc, dec)))
	if len(got) != 5000 || decoded.Load() == 0 {
		t.Fatalf("%d keys, %d entries decoded; want 5000, and some", len(got), decoded.Load())
	}
	for k, v := range got {
		if v.n != 4 {
			t.Fatalf("key %s: %d, want 4", k, v.n)
		}
	}
	noFiles(t, "EntryCodec", dir)
	bad := par.EntryCodec(enc, func([]byte) (string, hidden, error) { return "", hidden{}, errors.New("cannot read") })
	s := par.ReduceByKeySorted(it, kv, op, bad)
	for range s.All() {
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "cannot read") {
		t.Fatalf("a dec that fails: %v, want its error", err)
	}
	noFiles(t, "a dec that fails", dir)
	mustPanicWith(t, "par.EntrySize was given a nil function", func() { par.EntrySize[int, int](nil) })
	mustPanicWith(t, "par.EntryCodec (enc)", func() {
		par.EntryCodec[int, int](nil, func([]byte) (int, int, error) { return 0, 0, nil })
	})
	mustPanicWith(t, "par.EntryCodec (dec)", func() { par.EntryCodec(func(b []byte, _, _ int) []byte { return b }, nil) })
	mustPanicWith(t, "par.GroupBySorted was given a nil function", func() { par.GroupBySorted[int, int](par.Range(0, 1), nil) })
}
