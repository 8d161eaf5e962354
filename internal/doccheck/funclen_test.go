package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the most lines a function may span, from its func keyword
// to its closing brace (STYLE.md: functions short).
const maxFuncLines = 80

// shortFuncDirs are the packages whose non-test files hold no function over
// maxFuncLines lines.
var shortFuncDirs = []string{"iter", "internal/pipe"}

// TestFunctionsAreShort fails on any function or method of shortFuncDirs'
// non-test files that spans more than maxFuncLines lines.
func TestFunctionsAreShort(t *testing.T) {
	root := repoRoot(t)
	for _, dir := range shortFuncDirs {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || !inBuild(filepath.Join(root, dir), name) {
				continue
			}
			for _, long := range longFuncs(t, filepath.Join(root, dir, name), maxFuncLines) {
				t.Errorf("%s/%s: %s", dir, name, long)
			}
		}
	}
}

// longFuncs returns the functions of the Go file path that span more than
// limit lines, each as "name: n lines".
func longFuncs(t *testing.T, path string, limit int) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var long []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
		if n > limit {
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				name = recvName(fd.Recv.List[0].Type) + "." + name
			}
			long = append(long, fmt.Sprintf("%s: %d lines, over %d", name, n, limit))
		}
	}
	return long
}

// recvName returns the type name of a method's receiver, without its
// pointer or type parameters.
func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}
