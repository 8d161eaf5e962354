package doccheck

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

// A surface is what a public package may export: at most max names, as go
// doc lists them (its declarations and the methods of its types), and none
// of plumbing, the names that only gopar's own layers use.
type surface struct {
	pkg      string   // the package, relative to the module
	max      int      // the most names it may export
	plumbing []string // names it must not export ("Type.Method" for a method)
	handsOn  string   // a package whose exports are plumbing too: what pkg hands on through it
	home     string   // where the plumbing belongs instead
	sample   []string // names it exports, to tell a parse that went wrong
}

// surfaces are the public packages whose exports are bounded. runtime's
// plumbing is what internal/plumb hands on; iter's is what only par's
// operations use.
var surfaces = []surface{
	{pkg: "runtime", max: 30, handsOn: "internal/plumb", home: "reach it through internal/plumb",
		sample: []string{"Pool.Do", "Worker.Join"}},
	{pkg: "iter", max: 30, home: "it belongs in internal/pipe",
		plumbing: []string{
			"FlagBlock", "FlagNo", "FlagYes", "PackBlock", "SplitBlock", "FoldSlices",
			"SumBlock", "TryFill", "FoldUnordered", "RunPrefix", "StreamUnordered",
			"JoinFailures", "SearchBlock", "IsSeq", "Rereadable", "Filtered", "Flat",
			"Item", "Fill", "Spec.IsSeq", "Spec.Item",
		},
		sample: []string{"Run", "Spec.Each", "Spec.Map", "Reducer"}},
}

// TestSurface: each bounded package exports at most its max names, and
// none of its plumbing.
func TestSurface(t *testing.T) {
	root := repoRoot(t)
	for _, s := range surfaces {
		names := exportedNames(t, root, s.pkg)
		if s.handsOn != "" {
			s.plumbing = append(s.plumbing, exportedNames(t, root, s.handsOn)...)
		}
		for _, e := range s.check(names) {
			t.Error(e)
		}
		for _, want := range s.sample {
			if !slices.Contains(names, want) {
				t.Fatalf("%s: the surface %v lacks %s: the parse went wrong", s.pkg, names, want)
			}
		}
		t.Logf("%s: %d exported names: %s", s.pkg, len(names), strings.Join(names, ", "))
	}
}

// TestSurfaceCheckFails: the check reports a plumbing name, whether a
// function or a method, and a surface over the limit.
func TestSurfaceCheckFails(t *testing.T) {
	s := surface{pkg: "p", max: 3, plumbing: []string{"Spread", "Promotion.Wait"}}
	got := strings.Join(s.check([]string{"New", "Spread", "Promotion.Wait", "Pool.Do"}), "\n")
	for _, want := range []string{"exports Spread", "exports Promotion.Wait", "4 names, more than 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("check = %q, want %q reported", got, want)
		}
	}
	if errs := s.check([]string{"New", "Pool.Do", "Promotion"}); len(errs) != 0 {
		t.Errorf("check of a surface within its bounds = %q, want none", errs)
	}
}

// check returns an error for each plumbing name among names, and one if
// there are more than s.max.
func (s surface) check(names []string) []string {
	var errs []string
	for _, n := range names {
		if slices.Contains(s.plumbing, n) {
			errs = append(errs, fmt.Sprintf("%s exports %s, which only gopar's own layers use: %s", s.pkg, n, s.home))
		}
	}
	if len(names) > s.max {
		errs = append(errs, fmt.Sprintf("%s exports %d names, more than %d", s.pkg, len(names), s.max))
	}
	return errs
}

// exportedNames returns what the package rel exports, as go doc lists it:
// its constants, variables, functions and types, and the methods of its
// types (Type.Method).
func exportedNames(t *testing.T, root, rel string) []string {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(root, rel, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") || !inBuild(filepath.Dir(path), filepath.Base(path)) {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, module+"/"+rel)
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
