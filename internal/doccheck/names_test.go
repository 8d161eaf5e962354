package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// parName is a use of package par's API in prose or code: par.Map, par.Join.
var parName = regexp.MustCompile(`\bpar\.([A-Z]\w*)`)

// methodName is a method named in a code span of prose: `.Blocking(limit)`.
var methodName = regexp.MustCompile("`\\.([A-Z]\\w*)")

// parAPI returns the exported top-level names of package par.
func parAPI(t *testing.T, root string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, filepath.Join(root, "par"), func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go") && inBuild(filepath.Join(root, "par"), fi.Name())
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for n := range f.Scope.Objects {
				if ast.IsExported(n) {
					names[n] = true
				}
			}
		}
	}
	if !names["Map"] || !names["Join"] {
		t.Fatalf("package par's names %v lack Map and Join: the parse went wrong", names)
	}
	return names
}

// unknownParNames returns the uses of par.Name in text whose Name package
// par does not declare, as "line: par.Name".
func unknownParNames(text string, api map[string]bool) []string {
	var bad []string
	for i, line := range strings.Split(text, "\n") {
		for _, m := range parName.FindAllStringSubmatch(line, -1) {
			if !api[m[1]] {
				bad = append(bad, strconv.Itoa(i+1)+": par."+m[1])
			}
		}
	}
	return bad
}

// TestDocsNameParAPI checks that every par.Name the Markdown files use, in
// prose and in code, is a name package par declares, so that a renamed or
// removed function cannot live on in the docs. (The runnable Example
// functions and the examples/ programs are compiled by go test and go vet;
// the snippets of the docs are fragments, so their names are checked.)
func TestDocsNameParAPI(t *testing.T) {
	root := repoRoot(t)
	api := parAPI(t, root)
	uses := 0
	for _, path := range markdownFiles(t, root) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		uses += len(parName.FindAllString(string(b), -1))
		for _, bad := range unknownParNames(string(b), api) {
			t.Errorf("%s:%s: package par declares no such name", rel, bad)
		}
	}
	if uses == 0 {
		t.Fatal("the docs use no par.Name: the check checked nothing")
	}
	t.Logf("%d uses of par.Name checked", uses)
}

// TestUnknownParNameFails: a doc that names a function par does not have
// is caught.
func TestUnknownParNameFails(t *testing.T) {
	api := map[string]bool{"Map": true, "Join": true}
	got := unknownParNames("par.Map(it, f)\nthen par.Frobnicate(x) and par.Join\nsee gopar.Map", api)
	if len(got) != 1 || got[0] != "2: par.Frobnicate" {
		t.Fatalf("unknownParNames = %v, want [2: par.Frobnicate]", got)
	}
}

// methods returns the exported method names of packages par and runtime,
// and of the beam module's package, whose docs name its methods too.
func methods(t *testing.T, root string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, dir := range []string{"par", "runtime", "beam"} {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, filepath.Join(root, dir), func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go") && inBuild(filepath.Join(root, dir), fi.Name())
		}, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			for _, f := range p.Files {
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.IsExported() {
						names[fd.Name.Name] = true
					}
				}
			}
		}
	}
	if !names["Blocking"] || !names["Join"] {
		t.Fatalf("the methods %v lack Blocking and Join: the parse went wrong", names)
	}
	return names
}

// TestDocsNameMethods checks that a method the Markdown files name in a
// code span that starts with it (`.WithContext(ctx)`, `.Every`) is a method
// of package par, runtime or beam.
func TestDocsNameMethods(t *testing.T) {
	root := repoRoot(t)
	ms := methods(t, root)
	uses := 0
	for _, path := range markdownFiles(t, root) {
		rel, _ := filepath.Rel(root, path)
		for n, line := range proseLines(t, path) {
			for _, m := range methodName.FindAllStringSubmatch(line, -1) {
				uses++
				if !ms[m[1]] {
					t.Errorf("%s:%d: `.%s`: packages par, runtime and beam have no such method", rel, n, m[1])
				}
			}
		}
	}
	if uses == 0 {
		t.Fatal("the docs name no method: the check checked nothing")
	}
	t.Logf("%d method names checked", uses)
}
