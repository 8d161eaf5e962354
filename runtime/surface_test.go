package runtime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gopar-dev/gopar/internal/surface"
)

// maxSurface is the most exported declarations package runtime may have,
// counting each method reachable through its types (its aliases of
// internal/sched's types included): what a pool's user needs, and nothing
// else.
const maxSurface = 30

// plumbing are the names that only internal/pipe and par use. They live in
// internal/sched; runtime must export none of them, neither as its own
// declaration nor as a method reachable through an alias.
var plumbing = []string{
	"Unwinding", "Record", "Raise", "CallAfter", "Stronger", "NewPanic", "Catch",
	"Promote", "Promotion", "Spread", "Frame", "Latch", "JoinLazy", "Hungry",
	"Offer", "Wait",
}

// rule is runtime's: maxSurface declarations, none of the plumbing.
var rule = surface.Rule{Pkg: "runtime", Max: maxSurface, Plumbing: plumbing, Home: "only internal/pipe and par use: it belongs in internal/sched"}

// parse returns the surface.Info of the package in dir.
func parse(t *testing.T, fset *token.FileSet, dir string) surface.Info {
	t.Helper()
	files, err := surface.Parse(fset, dir)
	if err != nil {
		t.Fatal(err)
	}
	return surface.Inspect(files)
}

// list is surface.List's declarations, an error for each thing it could
// not count.
func list(t *testing.T, facade, engine surface.Info) []string {
	t.Helper()
	decls, _, errs := surface.List(facade, engine)
	for _, e := range errs {
		t.Error(e)
	}
	return decls
}

// TestSurface: runtime exports at most maxSurface declarations, counting
// the methods reachable through its types, and none of the plumbing.
func TestSurface(t *testing.T) {
	fset := token.NewFileSet()
	rt := parse(t, fset, ".")
	sched := parse(t, fset, filepath.Join("..", "internal", "sched"))
	names := list(t, rt, sched)
	for _, e := range rule.Check(names, nil) {
		t.Error(e)
	}
	if len(names) < 10 || !contains(names, "Pool.Do") || !contains(names, "Worker.Join") {
		t.Fatalf("the surface %v lacks Pool.Do or Worker.Join: the parse went wrong", names)
	}
	t.Logf("%d exported declarations: %s", len(names), strings.Join(names, ", "))
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestSurfaceCheckFails: the check counts the methods an alias reaches, and
// catches a plumbing name there and among the top-level names, and a
// surface over the limit.
func TestSurfaceCheckFails(t *testing.T) {
	parse := func(src string) surface.Info {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return surface.Inspect([]*ast.File{f})
	}
	rt := parse("package runtime\nimport \"s\"\ntype Worker = s.Worker\nfunc Catch() {}\nconst MaxWorkers = 1\n")
	sched := parse("package s\ntype Worker struct{}\nfunc (w *Worker) Join() {}\nfunc (w *Worker) Wait() {}\nfunc (w *Worker) index() {}\n")
	names := list(t, rt, sched)
	want := []string{"Catch", "MaxWorkers", "Worker", "Worker.Join", "Worker.Wait"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("surface = %v, want %v", names, want)
	}
	errs := rule.Check(names, nil)
	if len(errs) != 2 || !strings.Contains(errs[0]+errs[1], "exports Catch") || !strings.Contains(errs[0]+errs[1], "exports Worker.Wait") {
		t.Errorf("Check(%v) = %q, want Catch and Worker.Wait reported", names, errs)
	}
	many := make([]string, maxSurface+1)
	for i := range many {
		many[i] = "N" + strconv.Itoa(i)
	}
	if errs := rule.Check(many, nil); len(errs) != 1 || !strings.Contains(errs[0], "more than 30") {
		t.Errorf("Check of %d names = %q, want one error over the limit", len(many), errs)
	}
	if errs := rule.Check(many[:maxSurface], nil); len(errs) != 0 {
		t.Errorf("Check of %d names = %q, want none", maxSurface, errs)
	}
}
