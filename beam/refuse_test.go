package beam

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
)

// mustPanic runs f and checks that it panics with a message containing each
// of parts.
func mustPanic(t *testing.T, what string, f func(), parts ...string) {
	t.Helper()
	defer func() {
		t.Helper()
		v := recover()
		if v == nil {
			t.Errorf("%s: no panic", what)
			return
		}
		msg, _ := v.(string)
		for _, p := range parts {
			if !strings.Contains(msg, p) {
				t.Errorf("%s: panic %q does not say %q", what, msg, p)
			}
		}
	}()
	f()
}

type private struct {
	N     int
	total int
}

type withAny struct{ V any }

type ptrKey struct{ P *int }

func TestRefusals(t *testing.T) {
	// TestMain has called beam.Init, as main would before building a
	// pipeline.
	mustPanic(t, "a step after Init", func() { Map("test.late", strings.ToUpper) },
		`"test.late"`, "after beam.Init", "package-level")
	mustPanic(t, "two steps with one name", func() { Map("test.words", strings.ToUpper) },
		`"test.words"`, "exists already")
	mustPanic(t, "an unexported field", func() { Map("test.private", func(p private) int { return p.N }) },
		"field total", "unexported", "row coder")
	mustPanic(t, "an unexported field in an accumulator", func() {
		Fold("test.privateAcc", func() []private { return nil },
			func(a []private, x int) []private { return a }, func(a, b []private) []private { return a })
	}, "accumulator", "field total")
	mustPanic(t, "an interface field", func() { Map("test.any", func(w withAny) int { return 0 }) }, "interface")
	mustPanic(t, "a func", func() { Map("test.func", func(int) func() { return nil }) }, "func")
	mustPanic(t, "a complex number", func() { Map("test.complex", func(int) complex128 { return 0 }) }, "complex")
	mustPanic(t, "a pointer in a key", func() { ToKV("test.ptrKey", func(n int) (ptrKey, int) { return ptrKey{}, n }) },
		"pointer", "key")
	mustPanic(t, "a nil function", func() { Map[int, int]("test.nil", nil) }, "nil function")
	mustPanic(t, "no name", func() { Map("", strings.ToUpper) }, "needs a name")
	mustPanic(t, "the zero Collection", func() { words.Apply(Collection[string]{}) }, "zero Collection")
	mustPanic(t, "inputs from two pipelines", func() {
		a, b := NewPipeline(), NewPipeline()
		Collect(Create(a, []int{1}))
		evenHalf.Apply(Create(b, []int{1}))
		Sum(Create(a, []int{1}))
		// A node of a used with b's step output: build one with a's and
		// b's nodes mixed.
		b.add(&node{name: "mixed", inputs: []*node{Create(a, []int{1}).n}})
	}, "another pipeline")
}

// TestCollectNeedsLocalWorkers: on a runner whose workers run elsewhere,
// Run refuses Collect before starting a job, and says to use WriteText.
func TestCollectNeedsLocalWorkers(t *testing.T) {
	old := *runners.Runner
	defer func() { *runners.Runner = old }()
	*runners.Runner = "dataflow"
	if RunnerFromFlags() != Beam {
		t.Fatalf("-runner=dataflow: RunnerFromFlags() = %v, want Beam", RunnerFromFlags())
	}
	p := NewPipeline()
	Collect(Count(Create(p, []int{1, 2})))
	err := p.Run(context.Background(), Beam)
	if err == nil || !strings.Contains(err.Error(), "WriteText") || !strings.Contains(err.Error(), "dataflow") {
		t.Errorf("Run on dataflow with Collect: %v, want a refusal that names dataflow and WriteText", err)
	}
	for _, name := range []string{"", "gopar"} {
		*runners.Runner = name
		if RunnerFromFlags() != Gopar {
			t.Errorf("-runner=%q: RunnerFromFlags() = %v, want Gopar", name, RunnerFromFlags())
		}
	}
}

func TestRunTwice(t *testing.T) {
	p := NewPipeline()
	Collect(Create(p, []int{1}))
	if err := p.Run(context.Background(), Gopar); err != nil {
		t.Fatal(err)
	}
	if err := p.Run(context.Background(), Gopar); err == nil {
		t.Error("a second Run: no error")
	}
	mustPanic(t, "a step added after Run", func() { Create(p, []int{2}) }, "has run")
}

func TestCancelledOnGopar(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := NewPipeline()
	out := Collect(Sum(wordLen.Apply(words.Apply(Create(p, text(100, 1))))))
	if err := p.Run(ctx, Gopar); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: %v, want context.Canceled", err)
	}
	mustPanic(t, "Values after a failed Run", func() { out.Values() }, "before the pipeline ran")
}

// TestFoldMergeOrder: the struct Fold of the other tests gives one answer
// in any merge order, as Beam needs; a combine that keeps the first word it
// saw (fine on gopar, which merges in index order) is caught.
func TestFoldMergeOrder(t *testing.T) {
	ws := strings.Fields(strings.Join(text(500, 9), " "))
	if err := statsFold.CheckMerge(ws, 200, 1); err != nil {
		t.Error(err)
	}
	if err := firstSeen.CheckMerge(ws, 200, 1); err == nil {
		t.Error("a combine that keeps the first word seen passed CheckMerge")
	}
}

var firstSeen = Reduce("test.firstSeen", func() string { return "" }, func(a, b string) string {
	if a == "" {
		return b
	}
	return a
})

// TestText reads lines with ReadText and writes them with WriteText on
// both runners.
func TestText(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	lines := text(300, 5)
	lines[0] += "\r" // kept by both runners
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(lines)
	for i := range want {
		want[i] = strings.ToUpper(want[i])
	}
	slices.Sort(want)
	for _, r := range []Runner{Gopar, Beam} {
		out := filepath.Join(dir, r.String()+".txt")
		p := NewPipeline()
		WriteText(upper.Apply(ReadText(p, filepath.Join(dir, "in*.txt"))), out)
		if err := p.Run(context.Background(), r); err != nil {
			t.Fatalf("on %v: %v", r, err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("on %v: %v", r, err)
		}
		got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		slices.Sort(got)
		if d := mismatch(want, got); d != "" {
			t.Errorf("on %v:\n%s", r, d)
		}
	}
	// No file: an empty collection on both runners, as textio.Read gives.
	for _, r := range []Runner{Gopar, Beam} {
		p := NewPipeline()
		n := Collect(Count(ReadText(p, filepath.Join(dir, "none*.txt"))))
		if err := p.Run(context.Background(), r); err != nil {
			t.Fatalf("ReadText of no file on %v: %v", r, err)
		}
		if got, _ := n.Value(); got != 0 {
			t.Errorf("ReadText of no file on %v: %d lines", r, got)
		}
	}
}

var upper = Map("test.upper", strings.ToUpper)
