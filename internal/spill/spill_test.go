package spill

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// runsOf splits the keys into runs in the way an operation makes them:
// each run counts a slice of the keys, sorted, each key once.
func runsOf[K cmp.Ordered](keys []K, parts int) [][]Entry[K, int] {
	var out [][]Entry[K, int]
	for p := range parts {
		lo, hi := p*len(keys)/parts, (p+1)*len(keys)/parts
		var es []Entry[K, int]
		for _, k := range keys[lo:hi] {
			i := slices.IndexFunc(es, func(e Entry[K, int]) bool { return e.Key == k })
			if i < 0 || k != k { // a NaN is a key of its own
				es = append(es, Entry[K, int]{k, 1})
			} else {
				es[i].Value++
			}
		}
		slices.SortFunc(es, func(a, b Entry[K, int]) int { return cmp.Compare(a.Key, b.Key) })
		out = append(out, es)
	}
	return out
}

// check merges keys split into parts, onDisk of them written as runs, and
// compares the result with counting them in a map and sorting: each key
// once, in key order, with its count.
func check[K cmp.Ordered](t *testing.T, f Format[K, int], keys []K, parts, onDisk, fanIn int) {
	t.Helper()
	d := NewDir(t.TempDir(), 0)
	var runs []*Run[K, int]
	var mems [][]Entry[K, int]
	for i, es := range runsOf(keys, parts) {
		if i < onDisk {
			r, err := Write(d, f, es)
			if err != nil {
				t.Fatal(err)
			}
			if r.Len() != len(es) {
				t.Fatalf("run of %d entries says %d", len(es), r.Len())
			}
			runs = append(runs, r)
		} else {
			mems = append(mems, es)
		}
	}
	var got []Entry[K, int]
	err := Merge(d, runs, mems, func(a, b int) int { return a + b }, fanIn, func(k K, n int) bool {
		got = append(got, Entry[K, int]{k, n})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[K]int{}
	nans := 0
	for _, k := range keys {
		if k != k {
			nans++
			continue
		}
		want[k]++
	}
	gotNaN := 0
	for i, e := range got {
		if i > 0 && cmp.Compare(got[i-1].Key, e.Key) > 0 {
			t.Fatalf("entry %d (%v) after %v: not in key order", i, e.Key, got[i-1].Key)
		}
		if e.Key != e.Key {
			gotNaN++
			continue
		}
		if want[e.Key] != e.Value {
			t.Fatalf("key %v: count %d, want %d", e.Key, e.Value, want[e.Key])
		}
		delete(want, e.Key)
	}
	if len(want) > 0 || gotNaN != nans {
		t.Fatalf("%d keys missing, %d NaN entries for %d NaNs", len(want), gotNaN, nans)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if p := d.Path(); p != "" {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s is still there after Close: %v", p, err)
		}
	}
}

type id int64 // a named type: its values go through encoding/gob

func TestMergeCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ints := make([]int, 3000)
	for i := range ints {
		ints[i] = rng.IntN(500) - 250
	}
	for _, c := range []struct{ parts, onDisk, fanIn int }{
		{1, 1, 8}, {1, 0, 8}, {7, 7, 64}, {7, 3, 64}, {20, 20, 3}, {20, 10, 2}, {5, 0, 2},
	} {
		check(t, Format[int, int]{}, ints, c.parts, c.onDisk, c.fanIn)
	}
	u64 := make([]uint64, 2000)
	for i := range u64 {
		u64[i] = rng.Uint64() % 300
		if i%7 == 0 {
			u64[i] = math.MaxUint64 - u64[i]
		}
	}
	check(t, Format[uint64, int]{}, u64, 9, 6, 4)
	strs := make([]string, 2000)
	for i := range strs {
		strs[i] = string(rune('a'+rng.IntN(26))) + string(make([]byte, rng.IntN(3)))
	}
	check(t, Format[string, int]{}, strs, 6, 4, 3)
	floats := []float64{math.NaN(), 1, -1, math.Copysign(0, -1), 0, math.Inf(1), math.NaN(), 2.5, 1, math.Inf(-1)}
	check(t, Format[float64, int]{}, floats, 3, 2, 2)
	f32 := []float32{3, 1, 2, 3, float32(math.NaN()), 1}
	check(t, Format[float32, int]{}, f32, 2, 2, 2)
	ids := make([]id, 1000)
	for i := range ids {
		ids[i] = id(rng.IntN(100)) - 50
	}
	check(t, Format[id, int]{}, ids, 5, 5, 2)
	check(t, Format[int8, int]{}, []int8{-128, 127, 0, -128}, 2, 2, 2)
	check(t, Format[uint8, int]{}, []uint8{255, 0, 255}, 2, 1, 2)
	check(t, Format[int, int]{}, nil, 1, 1, 2)
	check(t, int8Bytes, []int8{-128, 127, 0, -128, 5, 5, 5}, 3, 2, 2)
	check(t, int8Bytes, nil, 2, 2, 2)
}

// int8Bytes writes an entry as the key's byte and the count's varint.
var int8Bytes = Bytes(
	func(b []byte, k int8, n int) []byte { return binary.AppendVarint(append(b, byte(k)), int64(n)) },
	func(b []byte) (int8, int, error) {
		if len(b) < 2 {
			return 0, 0, fmt.Errorf("an entry of %d bytes", len(b))
		}
		n, w := binary.Varint(b[1:])
		if w != len(b)-1 {
			return 0, 0, fmt.Errorf("a count of %d bytes in %d", w, len(b)-1)
		}
		return int8(b[0]), int(n), nil
	})

func TestBytesDecodeError(t *testing.T) {
	d := NewDir(t.TempDir(), 0)
	defer d.Close()
	bad := Bytes(
		func(b []byte, k, v int) []byte { return append(b, byte(k)) },
		func(b []byte) (int, int, error) { return 0, 0, errors.New("bad entry") })
	r, err := Write(d, bad, []Entry[int, int]{{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	err = Merge(d, []*Run[int, int]{r}, nil, func(a, b int) int { return a + b }, 4, func(int, int) bool { return true })
	if err == nil || !strings.Contains(err.Error(), "bad entry") {
		t.Fatalf("a run that dec cannot read merged with %v, want its error", err)
	}
}

func TestEmptyValues(t *testing.T) {
	d := NewDir(t.TempDir(), 0)
	defer d.Close()
	r, err := Write(d, Format[string, struct{}]{}, []Entry[string, struct{}]{{"a", struct{}{}}, {"b", struct{}{}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = Merge(d, []*Run[string, struct{}]{r}, [][]Entry[string, struct{}]{{{"b", struct{}{}}, {"c", struct{}{}}}},
		func(a, _ struct{}) struct{} { return a }, 4, func(k string, _ struct{}) bool { got = append(got, k); return true })
	if err != nil || strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("merged %v, %v; want a,b,c", got, err)
	}
	if d.Written() != 4 {
		t.Fatalf("2 keys of 1 byte and empty values took %d bytes, want 4", d.Written())
	}
}

func TestMergeStopsEarly(t *testing.T) {
	d := NewDir(t.TempDir(), 0)
	defer d.Close()
	r, err := Write(d, Format[int, int]{}, []Entry[int, int]{{1, 1}, {2, 1}, {3, 1}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = Merge(d, []*Run[int, int]{r}, nil, func(a, b int) int { return a + b }, 4, func(int, int) bool { n++; return n < 2 })
	if err != nil || n != 2 {
		t.Fatalf("stopped after %d entries, err %v; want 2, nil", n, err)
	}
}

func TestCap(t *testing.T) {
	d := NewDir(t.TempDir(), 100)
	defer d.Close()
	es := make([]Entry[int, int], 100)
	for i := range es {
		es[i] = Entry[int, int]{i, i}
	}
	_, err := Write(d, Format[int, int]{}, es) // 100 entries take more than 100 bytes once flushed
	var ce *CapError
	if !errors.As(err, &ce) || ce.Cap != 100 {
		t.Fatalf("Write past the cap: %v, want a *CapError of 100", err)
	}
	left, _ := os.ReadDir(d.Path())
	if len(left) != 0 {
		t.Fatalf("a failed run left %d files", len(left))
	}
}

func TestNoDirUntilARun(t *testing.T) {
	parent := t.TempDir()
	d := NewDir(parent, 0)
	if d.Path() != "" {
		t.Fatal("a Dir with no run has a path")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(d, Format[string, int]{}, []Entry[string, int]{{"a", 1}}); err != nil {
		t.Fatal(err)
	}
	if d.Path() == "" {
		t.Fatal("no path after a run")
	}
	d.Close()
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Fatalf("Close left %d entries in the parent", len(left))
	}
}

func TestTruncatedRun(t *testing.T) {
	d := NewDir(t.TempDir(), 0)
	defer d.Close()
	r, err := Write(d, Format[string, int]{}, []Entry[string, int]{{"hello", 300}, {"world", 1}})
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(r.path)
	if err := os.Truncate(r.path, fi.Size()-3); err != nil {
		t.Fatal(err)
	}
	err = Merge(d, []*Run[string, int]{r}, nil, func(a, b int) int { return a + b }, 4, func(string, int) bool { return true })
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a truncated run read as %v, want io.ErrUnexpectedEOF", err)
	}
}

// FuzzMerge: keys drawn from the input (strings of one to three bytes and
// their first byte as an int8), split into runs on disk and in memory,
// merge into the counts of a map, in key order.
func FuzzMerge(f *testing.F) {
	f.Add([]byte("the quick brown fox jumps over the lazy dog"), uint8(3), uint8(2), uint8(2))
	f.Add([]byte{0, 0, 255, 128, 127, 0}, uint8(1), uint8(1), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, parts, onDisk, fanIn uint8) {
		if len(data) > 4096 {
			return
		}
		var strs []string
		var small []int8
		for i := 0; i < len(data); i += 1 + int(data[i])%3 {
			strs = append(strs, string(data[i:min(len(data), i+1+int(data[i])%3)]))
			small = append(small, int8(data[i]))
		}
		p := 1 + int(parts)%16
		check(t, Format[string, int]{}, strs, p, int(onDisk)%(p+1), 2+int(fanIn)%8)
		check(t, Format[int8, int]{}, small, p, int(onDisk)%(p+1), 2+int(fanIn)%8)
		check(t, int8Bytes, small, p, int(onDisk)%(p+1), 2+int(fanIn)%8)
	})
}
