package par_test

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecKeepsNoReceiver guards the condition that makes specOf's noescape
// (iter.go) safe: the Iterator argument may stay in its caller's frame only
// because no spec method keeps a pointer to its receiver. There is one spec
// method, on Iter, which returns a copy of the receiver's Spec; every other
// Iterator (Nums, Ints) has it by embedding. A second spec method, or one
// that does anything else, fails here, to be checked by hand against
// specOf's comment first. (Without noescape, par.Sum(par.Map(par.Range(0,
// n), f)) allocates twice per call: TestAllocationsDoNotGrowWithN.)
func TestSpecKeepsNoReceiver(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		// A file in syntax newer than this go/parser's (generic methods,
		// Go 1.27) parses with errors; its declarations are still read.
		f, err := parser.ParseFile(fset, path, nil, parser.AllErrors)
		if f == nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "spec" {
				continue
			}
			var b strings.Builder
			printer.Fprint(&b, fset, fn)
			found = append(found, strings.Join(strings.Fields(b.String()), " "))
		}
	}
	want := "func (it Iter[T]) spec() pipe.Spec[T] { return it.s }"
	if len(found) != 1 || found[0] != want {
		t.Fatalf("spec methods: %q; want only %q (see specOf)", found, want)
	}
}
