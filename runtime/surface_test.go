package runtime

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
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

// parseDir parses the non-test Go files of dir that build for this
// toolchain and platform.
func parseDir(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("%s has no Go files", dir)
	}
	return files
}

// recvType is the name of the type a method is declared on.
func recvType(fd *ast.FuncDecl) string {
	typ := fd.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	if ix, ok := typ.(*ast.IndexListExpr); ok {
		typ = ix.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// pkgInfo is what the surface needs of a package: its exported top-level
// names, the exported methods of each type, the target of each alias into
// the other package (selector), and the types with embedded fields, whose
// promoted methods this count would miss.
type pkgInfo struct {
	names    []string
	methods  map[string][]string
	aliases  map[string]string
	embedded map[string]bool
}

func inspect(files []*ast.File) pkgInfo {
	pi := pkgInfo{methods: map[string][]string{}, aliases: map[string]string{}, embedded: map[string]bool{}}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					pi.names = append(pi.names, d.Name.Name)
				} else if r := recvType(d); r != "" {
					pi.methods[r] = append(pi.methods[r], d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						pi.names = append(pi.names, s.Name.Name)
						if sel, ok := s.Type.(*ast.SelectorExpr); ok && s.Assign.IsValid() {
							pi.aliases[s.Name.Name] = sel.Sel.Name
						}
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fld := range st.Fields.List {
								if len(fld.Names) == 0 {
									pi.embedded[s.Name.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								pi.names = append(pi.names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return pi
}

// surface lists runtime's exported declarations, as "Name" for a top-level
// one and "Type.Method" for a method reachable through a type, given the
// parsed files of runtime and of the package its aliases point into.
func surface(t *testing.T, rt, sched pkgInfo) []string {
	t.Helper()
	var out []string
	for _, n := range rt.names {
		out = append(out, n)
		ms, emb := rt.methods[n], rt.embedded[n]
		if target, ok := rt.aliases[n]; ok {
			ms, emb = sched.methods[target], sched.embedded[target]
		}
		if emb {
			t.Errorf("%s has an embedded field, whose promoted methods are part of the surface: name the field", n)
		}
		for _, m := range ms {
			out = append(out, n+"."+m)
		}
	}
	sort.Strings(out)
	return out
}

// checkSurface returns what is wrong with a surface: too many declarations,
// or a plumbing name among them.
func checkSurface(names []string) []string {
	var errs []string
	if len(names) > maxSurface {
		errs = append(errs, "runtime exports "+strconv.Itoa(len(names))+" declarations counting methods, more than "+strconv.Itoa(maxSurface)+": "+strings.Join(names, ", "))
	}
	for _, n := range names {
		last := n[strings.LastIndex(n, ".")+1:]
		for _, p := range plumbing {
			if last == p {
				errs = append(errs, "runtime exports "+n+", plumbing that only internal/pipe and par use: it belongs in internal/sched")
			}
		}
	}
	return errs
}

// TestSurface: runtime exports at most maxSurface declarations, counting
// the methods reachable through its types, and none of the plumbing.
func TestSurface(t *testing.T) {
	fset := token.NewFileSet()
	rt := inspect(parseDir(t, fset, "."))
	sched := inspect(parseDir(t, fset, filepath.Join("..", "internal", "sched")))
	names := surface(t, rt, sched)
	for _, e := range checkSurface(names) {
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
	parse := func(src string) pkgInfo {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return inspect([]*ast.File{f})
	}
	rt := parse("package runtime\nimport \"s\"\ntype Worker = s.Worker\nfunc Catch() {}\nconst MaxWorkers = 1\n")
	sched := parse("package s\ntype Worker struct{}\nfunc (w *Worker) Join() {}\nfunc (w *Worker) Wait() {}\nfunc (w *Worker) index() {}\n")
	names := surface(t, rt, sched)
	want := []string{"Catch", "MaxWorkers", "Worker", "Worker.Join", "Worker.Wait"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("surface = %v, want %v", names, want)
	}
	errs := checkSurface(names)
	if len(errs) != 2 || !strings.Contains(errs[0]+errs[1], "exports Catch") || !strings.Contains(errs[0]+errs[1], "exports Worker.Wait") {
		t.Errorf("checkSurface(%v) = %q, want Catch and Worker.Wait reported", names, errs)
	}
	many := make([]string, maxSurface+1)
	for i := range many {
		many[i] = "N" + strconv.Itoa(i)
	}
	if errs := checkSurface(many); len(errs) != 1 || !strings.Contains(errs[0], "more than 30") {
		t.Errorf("checkSurface of %d names = %q, want one error over the limit", len(many), errs)
	}
	if errs := checkSurface(many[:maxSurface]); len(errs) != 0 {
		t.Errorf("checkSurface of %d names = %q, want none", maxSurface, errs)
	}
}
