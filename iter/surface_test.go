package iter

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

// maxSurface is the most exported declarations package iter may have,
// counting each method reachable through its types (its aliases of
// internal/pipe's types included, and the methods of an interface): what a
// user writing a terminal operation over a Spec needs, and nothing else.
const maxSurface = 36

// plumbing are the names that only par's operations use. They live in
// internal/pipe; iter must export none of them, neither as its own
// declaration nor as a method reachable through an alias. A name with a
// dot ("Reducer.SeqLen") is a field or method of that type only; one
// without is any declaration, method or field of that name.
var plumbing = []string{
	"FlagBlock", "FlagNo", "FlagYes", "PackBlock", "SplitBlock", "FoldSlices",
	"SumBlock", "TryFill", "FoldUnordered", "RunPrefix", "StreamUnordered",
	"JoinFailures", "SearchBlock", "IsSeq", "Rereadable", "Filtered", "Flat",
	"Item", "Fill", "Reducer.Unordered", "Reducer.SeqLen",
}

// rule is iter's: maxSurface declarations, none of the plumbing.
var rule = surface.Rule{Pkg: "iter", Max: maxSurface, Plumbing: plumbing, Home: "only par uses: it belongs in internal/pipe"}

// parse returns the surface.Info of the package in dir.
func parse(t *testing.T, fset *token.FileSet, dir string) surface.Info {
	t.Helper()
	files, err := surface.Parse(fset, dir)
	if err != nil {
		t.Fatal(err)
	}
	return surface.Inspect(files)
}

// list is surface.List, an error for each thing it could not count.
func list(t *testing.T, facade, engine surface.Info) (decls, fields []string) {
	t.Helper()
	decls, fields, errs := surface.List(facade, engine)
	for _, e := range errs {
		t.Error(e)
	}
	return decls, fields
}

// TestSurface: iter exports at most maxSurface declarations, counting the
// methods reachable through its types, and none of the plumbing.
func TestSurface(t *testing.T) {
	fset := token.NewFileSet()
	it := parse(t, fset, ".")
	pipe := parse(t, fset, filepath.Join("..", "internal", "pipe"))
	decls, fields := list(t, it, pipe)
	for _, e := range rule.Check(decls, fields) {
		t.Error(e)
	}
	for _, want := range []string{"Run", "Spec.Each", "Spec.Map", "Timeline.WriteSVG"} {
		if !contains(decls, want) {
			t.Fatalf("the surface %v lacks %s: the parse went wrong", decls, want)
		}
	}
	if !contains(fields, "Spec.Config") || !contains(fields, "Spec.Pool") || !contains(fields, "Reducer.Fold") {
		t.Fatalf("the fields %v lack Spec.Config, Spec.Pool (promoted from Config) or Reducer.Fold: the parse went wrong", fields)
	}
	t.Logf("%d exported declarations: %s", len(decls), strings.Join(decls, ", "))
	t.Logf("%d exported fields: %s", len(fields), strings.Join(fields, ", "))
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestSurfaceCheckFails: the check counts the methods an alias reaches,
// those an embedded type promotes and an interface's, and catches a
// plumbing name there, among the top-level names and among the fields,
// and a surface over the limit.
func TestSurfaceCheckFails(t *testing.T) {
	parse := func(src string) surface.Info {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return surface.Inspect([]*ast.File{f})
	}
	it := parse("package iter\nimport \"p\"\ntype Spec[T any] = p.Spec[T]\nfunc FlagBlock() {}\nconst N = 1\ntype Reducer[A any] struct { Fold func(); SeqLen func() }\ntype F interface { Err() error }\n")
	pipe := parse("package p\ntype Spec[T any] struct { Lo int; Config }\ntype Config struct { Unordered bool }\nfunc (c Config) Bound() {}\nfunc (s *Spec[T]) Each() {}\nfunc (s *Spec[T]) IsSeq() {}\nfunc (s *Spec[T]) item() {}\n")
	decls, fields := list(t, it, pipe)
	want := []string{"F", "F.Err", "FlagBlock", "N", "Reducer", "Spec", "Spec.Bound", "Spec.Each", "Spec.IsSeq"}
	if strings.Join(decls, " ") != strings.Join(want, " ") {
		t.Fatalf("surface = %v, want %v", decls, want)
	}
	wantFields := []string{"Reducer.Fold", "Reducer.SeqLen", "Spec.Config", "Spec.Lo", "Spec.Unordered"}
	if strings.Join(fields, " ") != strings.Join(wantFields, " ") {
		t.Fatalf("fields = %v, want %v", fields, wantFields)
	}
	errs := strings.Join(rule.Check(decls, fields), "\n")
	for _, w := range []string{"exports FlagBlock", "exports Spec.IsSeq", "exports Reducer.SeqLen"} {
		if !strings.Contains(errs, w) {
			t.Errorf("Check = %q, want %q reported", errs, w)
		}
	}
	if strings.Contains(errs, "Spec.Unordered") || strings.Count(errs, "\n") != 2 {
		t.Errorf("Check = %q, want three errors, and Spec.Unordered (not Reducer's) not among them", errs)
	}
	many := make([]string, maxSurface+1)
	for i := range many {
		many[i] = "N" + strconv.Itoa(i)
	}
	if errs := rule.Check(many, nil); len(errs) != 1 || !strings.Contains(errs[0], "more than "+strconv.Itoa(maxSurface)) {
		t.Errorf("Check of %d names = %q, want one error over the limit", len(many), errs)
	}
	if errs := rule.Check(many[:maxSurface], nil); len(errs) != 0 {
		t.Errorf("Check of %d names = %q, want none", maxSurface, errs)
	}
}
