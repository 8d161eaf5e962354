package runtime

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxSurface is the most exported names package runtime may have, its
// declarations and the exported methods of its types: what a pool's user
// needs, and nothing else.
const maxSurface = 30

// TestSurface: runtime exports at most maxSurface names, and none of the
// plumbing, the entry points that internal/plumb hands to internal/pipe and
// par.
func TestSurface(t *testing.T) {
	names := exportedNames(t, ".")
	for _, e := range checkSurface(names, entryPoints(t, "../internal/plumb"), maxSurface) {
		t.Error(e)
	}
	if !slices.Contains(names, "Pool.Do") || !slices.Contains(names, "Worker.Join") {
		t.Fatalf("the surface %v lacks Pool.Do or Worker.Join: the parse went wrong", names)
	}
	t.Logf("%d exported names: %s", len(names), strings.Join(names, ", "))
}

// TestSurfaceCheckFails: the check reports a plumbing name, whether a
// function or a method, and a surface over the limit.
func TestSurfaceCheckFails(t *testing.T) {
	errs := checkSurface([]string{"New", "Spread", "Promotion.Wait", "Pool.Do"}, []string{"Spread", "Promotion.Wait"}, 3)
	got := strings.Join(errs, "\n")
	for _, want := range []string{"exports Spread", "exports Promotion.Wait", "4 names, more than 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("checkSurface = %q, want %q reported", got, want)
		}
	}
	if errs := checkSurface([]string{"New", "Pool.Do"}, []string{"Spread"}, 2); len(errs) != 0 {
		t.Errorf("checkSurface of a surface within its bounds = %q, want none", errs)
	}
}

// checkSurface returns an error for each plumbing name among names, and one
// if there are more than max.
func checkSurface(names, plumbing []string, max int) []string {
	var errs []string
	for _, n := range names {
		if slices.Contains(plumbing, n) {
			errs = append(errs, fmt.Sprintf("runtime exports %s, which only internal/pipe and par use: reach it through internal/plumb", n))
		}
	}
	if len(names) > max {
		errs = append(errs, fmt.Sprintf("runtime exports %d names, more than %d", len(names), max))
	}
	return errs
}

// exportedNames returns what the package in dir exports, as go doc lists
// it: its constants, variables, functions and types, and the methods of
// its types (Type.Method).
func exportedNames(t *testing.T, dir string) []string {
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/gopar-dev/gopar/runtime")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			names = append(names, v.Names...)
		}
	}
	values(p.Consts)
	values(p.Vars)
	for _, f := range p.Funcs {
		names = append(names, f.Name)
	}
	for _, typ := range p.Types {
		names = append(names, typ.Name)
		values(typ.Consts)
		values(typ.Vars)
		for _, f := range typ.Funcs {
			names = append(names, f.Name)
		}
		for _, m := range typ.Methods {
			names = append(names, typ.Name+"."+m.Name)
		}
	}
	return names
}
