package pipe

import (
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestBoxedKeepsTheReducer checks that a boxed reducer gives what the
// reducer gives: a nil Identity stands for A's zero value, Combine, Stop
// and Cut see the accumulators, and a reducer over any is left as it is.
func TestBoxedKeepsTheReducer(t *testing.T) {
	r := Reducer[[]int]{
		Fold: func(acc []int, lo, hi int) []int {
			for i := lo; i < hi; i++ {
				acc = append(acc, i)
			}
			return acc
		},
		Combine: func(l, r []int) []int { return append(l, r...) },
		Stop:    func(acc []int) bool { return len(acc) > 3 },
		Cut:     func(acc []int) int { return len(acc) },
	}
	b := boxed(r)
	if b.Identity != nil {
		t.Fatal("a nil Identity is boxed into a non-nil one")
	}
	left := b.Fold(b.identity(), 0, 2)
	right := b.Fold(nil, 2, 5)
	if got := unbox[[]int](b.Combine(left, right)); len(got) != 5 || got[4] != 4 {
		t.Fatalf("Combine gave %v, want [0 1 2 3 4]", got)
	}
	if got := unbox[[]int](b.Combine(nil, b.Fold(nil, 7, 8))); len(got) != 1 || got[0] != 7 {
		t.Fatalf("Combine of a zero accumulator gave %v, want [7]", got)
	}
	if b.Stop(b.Fold(nil, 0, 3)) || !b.Stop(b.Fold(nil, 0, 4)) || b.Cut(nil) != 0 || b.Cut(right) != 3 {
		t.Fatal("Stop or Cut does not see the boxed accumulator")
	}
	if got := unbox[[]int](nil); got != nil {
		t.Fatalf("unbox(nil) = %v, want A's zero value", got)
	}
	if got := unbox[int](box(42)); got != 42 {
		t.Fatalf("unbox(box(42)) = %d", got)
	}

	plain := Reducer[any]{Fold: func(acc any, lo, hi int) any { return hi }}
	again := boxed(plain)
	if got := again.Fold(nil, 0, 9); got != 9 {
		t.Fatalf("a reducer over any was boxed again: Fold gave %v, want 9", got)
	}
	if got := unbox[any](again.Fold(nil, 0, 9)); got != 9 || unbox[any](box[any](nil)) != nil {
		t.Fatalf("unbox over any gave %v", got)
	}
}

// shapeOf returns the function or type of this package that a symbol's
// code belongs to, and the GC shape it was compiled for, if it is code of
// a generic one (a symbol such as pipe.run[go.shape.int] or
// pipe.(*loop[go.shape.interface {}]).combine).
func shapeOf(sym string) (name, shape string, ok bool) {
	const pkg = "internal/pipe."
	i := strings.Index(sym, pkg)
	if i < 0 {
		return "", "", false
	}
	rest := strings.TrimPrefix(sym[i+len(pkg):], "(*")
	open := strings.Index(rest, "[go.shape.")
	if open < 0 {
		return "", "", false
	}
	depth := 0
	for j := open; j < len(rest); j++ {
		switch rest[j] {
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return rest[:open], rest[open+1 : j], true
			}
		}
	}
	return "", "", false
}

// TestDriversCompiledOnce checks, in the symbols of a program that folds
// into five accumulator types on every driver (testdata/folds), that the
// drivers past the inline phase are compiled once, over any (through
// boxed), while Run is compiled for each type: a driver compiled
// once per type would multiply a program's build time, memory and binary
// by every type it folds into.
func TestDriversCompiledOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the program with")
	}
	exe := filepath.Join(t.TempDir(), "folds")
	if out, err := exec.Command(goTool, "build", "-o", exe, "./testdata/folds").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(goTool, "tool", "nm", exe).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool nm: %v\n%s", err, out)
	}
	shapes := map[string]map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		name, shape, ok := shapeOf(line)
		if !ok {
			continue
		}
		if shapes[name] == nil {
			shapes[name] = map[string]bool{}
		}
		shapes[name][shape] = true
	}
	if n := len(shapes["Run"]); n < 5 {
		t.Fatalf("Run is compiled for %d accumulator types, want 5: the symbols were not read right", n)
	}
	for _, f := range []string{"runParallel", "runBlocking", "runSeq", "participate", "engine", "loop", "inOrderLoop", "poolHand", "combineRuns"} {
		var got []string
		for s := range shapes[f] {
			got = append(got, s)
		}
		sort.Strings(got)
		if len(got) > 1 {
			t.Errorf("%s is compiled for %d accumulator types, want one: %v", f, len(got), got)
		}
	}
}

// TestRunOverAny checks a loop whose accumulator type is any, which boxed
// leaves as it is, on every driver: its accumulators are the reducer's own
// values, nil for a run that starts from the zero value.
func TestRunOverAny(t *testing.T) {
	const n = 1 << 16
	r := Reducer[any]{
		Fold: func(acc any, lo, hi int) any {
			s, _ := acc.(int)
			for i := lo; i < hi; i++ {
				s += i
			}
			return s
		},
		Combine: func(l, r any) any {
			a, _ := l.(int)
			b, _ := r.(int)
			return a + b
		},
	}
	for _, cfg := range []Config{{}, {Blocking: 3}, {MaxBlock: 7}} {
		if got := Run(cfg, 0, n, r); got != n*(n-1)/2 {
			t.Errorf("Run over any with %+v = %v, want %d", cfg, got, n*(n-1)/2)
		}
	}
	if got := Run(Config{}, 0, 0, r); got != nil {
		t.Errorf("Run over any of no items = %v, want nil", got)
	}
}
