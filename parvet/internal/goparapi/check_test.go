package goparapi

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

// passOf type-checks src, one file of package p, as an analysis would load
// it (its imports from Go's source), and returns a pass over it.
func passOf(t *testing.T, src string) (*analysis.Pass, *ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	return &analysis.Pass{
		Fset: fset, Files: []*ast.File{f}, Pkg: pkg, TypesInfo: info,
		TypesSizes: types.SizesFor("gc", "amd64"),
		ReadFile: func(name string) ([]byte, error) {
			if name == "p.go" {
				return []byte(src), nil
			}
			return os.ReadFile(name)
		},
	}, f
}

// replace returns the fix that puts text in place of old in src, and adds
// gopar's par to its imports.
func replace(t *testing.T, pass *analysis.Pass, f *ast.File, src, old, text string) analysis.SuggestedFix {
	t.Helper()
	at := strings.Index(src, old)
	if at < 0 {
		t.Fatalf("%q is not in the source", old)
	}
	base := token.Pos(pass.Fset.File(f.Pos()).Base())
	imp := strings.Index(src, "import (") + len("import (")
	return analysis.SuggestedFix{TextEdits: []analysis.TextEdit{
		{Pos: base + token.Pos(imp), End: base + token.Pos(imp), NewText: []byte("\n\t\"github.com/gopar-dev/gopar/par\"")},
		{Pos: base + token.Pos(at), End: base + token.Pos(at+len(old)), NewText: []byte(text)},
	}}
}

// TestCheckFixChecksParCalls checks that a fix's calls of par are checked
// where the package does not import gopar: a limit of the wrong type fails,
// the same fix with an int passes, and a context of the code's own fits
// the stub's WithContext.
func TestCheckFixChecksParCalls(t *testing.T) {
	src := `package p

import (
	"context"
)

func f(ctx context.Context, xs []int, n uint) {
	for _, x := range xs {
		_ = x
	}
}
`
	pass, f := passOf(t, src)
	loop := "for _, x := range xs {\n\t\t_ = x\n\t}"
	for _, c := range []struct {
		text string
		fail string // a part of the error, or "" for none
	}{
		{"par.Slice(xs).Blocking(max(n, 1)).ForEach(func(x int) { _ = x })", "as int value"},
		{"par.Slice(xs).Blocking(max(int(n), 1)).ForEach(func(x int) { _ = x })", ""},
		{"par.Slice(xs).WithContext(ctx).TryForEachContext(func(ctx context.Context, x int) error { return ctx.Err() })", ""},
		{"par.Slice(xs).ForEach(func(x string) { _ = x })", "cannot use"},
	} {
		err := CheckFix(pass, f, replace(t, pass, f, src, loop, c.text))
		switch {
		case c.fail == "" && err != nil:
			t.Errorf("%s: %v, want no error", c.text, err)
		case c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)):
			t.Errorf("%s: %v, want an error with %q", c.text, err, c.fail)
		}
	}
}

// TestStubIsTestdatas checks that the stub CheckFix uses is the stub the
// analyzers' tests run against.
func TestStubIsTestdatas(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "src", "github.com", "gopar-dev", "gopar", "par", "par.go"))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(stubSource) {
		t.Error("parstub.go.txt is not testdata's stub of par: copy testdata/src/github.com/gopar-dev/gopar/par/par.go over it")
	}
}

// TestStubMatchesPar checks each exported name of the stub against gopar's
// par package (the module two folders above parvet's): the same kind of
// declaration, and for functions and methods the same signature.
func TestStubMatchesPar(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: root}, ParPath)
	if err != nil || len(pkgs) != 1 || pkgs[0].Types == nil || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading %s from %s: %v %v", ParPath, root, err, pkgs)
	}
	real := pkgs[0].Types
	stub := importerFor(types.NewPackage("p", "p")).par()
	if stub == nil {
		t.Fatal("the stub does not type-check")
	}
	qual := func(p *types.Package) string { return p.Name() }
	sig := func(o types.Object) string { return types.ObjectString(o, qual) }
	checked := 0
	for _, name := range stub.Scope().Names() {
		s := stub.Scope().Lookup(name)
		if !s.Exported() {
			continue
		}
		r := real.Scope().Lookup(name)
		if r == nil {
			t.Errorf("par has no %s", name)
			continue
		}
		switch s := s.(type) {
		case *types.Func:
			checked++
			if sig(s) != sig(r) {
				t.Errorf("%s:\nstub %s\npar  %s", name, sig(s), sig(r))
			}
		case *types.TypeName:
			rt, ok := r.(*types.TypeName)
			if !ok {
				t.Errorf("%s is a type in the stub, not in par", name)
				continue
			}
			sn, ok1 := s.Type().(*types.Named)
			rn, ok2 := rt.Type().(*types.Named)
			if !ok1 || !ok2 {
				continue
			}
			for i := range sn.NumMethods() {
				m := sn.Method(i)
				if !m.Exported() {
					continue
				}
				checked++
				rm, _, _ := types.LookupFieldOrMethod(rn, true, real, m.Name())
				if rm == nil {
					t.Errorf("par's %s has no method %s", name, m.Name())
				} else if sig(m) != sig(rm) {
					t.Errorf("%s.%s:\nstub %s\npar  %s", name, m.Name(), sig(m), sig(rm))
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("%d functions and methods checked, want the stub's whole API", checked)
	}
}
