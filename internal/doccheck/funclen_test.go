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

// The size of the library's code (STYLE.md: functions short; one idea per
// file): no function spans more than maxFuncLines lines, from its func
// keyword to its closing brace, or takes more than maxParams parameters,
// and no file is over maxFileLines lines.
const (
	maxFuncLines = 60
	maxParams    = 6
	maxFileLines = 450
)

// libraryDirs are the packages whose non-test files the size rules hold
// for: every package of the library (internal/... stands for each package
// under internal).
var libraryDirs = []string{"par", "iter", "runtime", "partition", "steal", "internal/..."}

// TestCodeIsShort fails on any non-test file of libraryDirs over
// maxFileLines lines, and on any function or method in one that spans over
// maxFuncLines lines or takes over maxParams parameters. A file that the
// running Go does not build (a Go 1.27 file under Go 1.26) is left out.
func TestCodeIsShort(t *testing.T) {
	root := repoRoot(t)
	for _, dir := range expandDirs(t, root, libraryDirs) {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || !inBuild(filepath.Join(root, dir), name) {
				continue
			}
			for _, long := range longCode(t, filepath.Join(root, dir, name)) {
				t.Errorf("%s/%s: %s", dir, name, long)
			}
		}
	}
}

// expandDirs returns dirs with each "d/..." replaced by the directories
// under d that hold Go files.
func expandDirs(t *testing.T, root string, dirs []string) []string {
	t.Helper()
	var out []string
	for _, d := range dirs {
		parent, ok := strings.CutSuffix(d, "/...")
		if !ok {
			out = append(out, d)
			continue
		}
		entries, err := os.ReadDir(filepath.Join(root, parent))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, parent+"/"+e.Name())
			}
		}
	}
	return out
}

// longCode returns what breaks the size rules in the Go file path: the
// file's length, and each function too long or with too many parameters.
func longCode(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var long []string
	if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
		long = append(long, fmt.Sprintf("%d lines, over %d", n, maxFileLines))
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = recvName(fd.Recv.List[0].Type) + "." + name
		}
		if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
			long = append(long, fmt.Sprintf("%s: %d lines, over %d", name, n, maxFuncLines))
		}
		if n := countParams(fd.Type.Params); n > maxParams {
			long = append(long, fmt.Sprintf("%s: %d parameters, over %d", name, n, maxParams))
		}
	}
	return long
}

// countParams returns the number of parameters a parameter list declares.
func countParams(params *ast.FieldList) int {
	n := 0
	for _, p := range params.List {
		n += max(1, len(p.Names))
	}
	return n
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
