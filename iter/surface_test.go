package iter

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

// typeName is the name of a type expression that names a type of the
// package, with its pointer and type arguments taken off ("" for others).
func typeName(typ ast.Expr) string {
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

// selName is the type a selector expression (pipe.Spec[T]) names in the
// other package, with its type arguments taken off ("" for others).
func selName(typ ast.Expr) string {
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	if ix, ok := typ.(*ast.IndexListExpr); ok {
		typ = ix.X
	}
	if sel, ok := typ.(*ast.SelectorExpr); ok {
		return sel.Sel.Name
	}
	return ""
}

// pkgInfo is what the surface needs of a package: its exported top-level
// names, the exported methods of each type (an interface's included), the
// exported fields of each struct type, the target of each alias into the
// other package, and the types each struct type embeds, whose methods and
// fields it promotes.
type pkgInfo struct {
	names    []string
	methods  map[string][]string
	fields   map[string][]string
	aliases  map[string]string
	embedded map[string][]string
}

func inspect(files []*ast.File) pkgInfo {
	pi := pkgInfo{methods: map[string][]string{}, fields: map[string][]string{}, aliases: map[string]string{}, embedded: map[string][]string{}}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					pi.names = append(pi.names, d.Name.Name)
				} else if r := typeName(d.Recv.List[0].Type); r != "" {
					pi.methods[r] = append(pi.methods[r], d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						n := s.Name.Name
						if s.Name.IsExported() {
							pi.names = append(pi.names, n)
						}
						if target := selName(s.Type); target != "" && s.Assign.IsValid() {
							pi.aliases[n] = target
						}
						switch typ := s.Type.(type) {
						case *ast.StructType:
							for _, fld := range typ.Fields.List {
								if len(fld.Names) == 0 {
									pi.embedded[n] = append(pi.embedded[n], typeName(fld.Type))
								}
								for _, id := range fld.Names {
									if id.IsExported() {
										pi.fields[n] = append(pi.fields[n], id.Name)
									}
								}
							}
						case *ast.InterfaceType:
							for _, m := range typ.Methods.List {
								for _, id := range m.Names {
									if id.IsExported() {
										pi.methods[n] = append(pi.methods[n], id.Name)
									}
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

// members returns the exported methods and fields of the type name of pi,
// with those its embedded types promote. An embedded type that is not one
// of pi's (one of another package, or unexported and unknown) is an error:
// this count would miss what it promotes.
func members(t *testing.T, pi pkgInfo, name string) (methods, fields []string) {
	t.Helper()
	methods, fields = pi.methods[name], pi.fields[name]
	for _, e := range pi.embedded[name] {
		if e == "" {
			t.Errorf("%s embeds a type of another package, whose promoted methods are part of the surface: name the field", name)
			continue
		}
		if ast.IsExported(e) {
			fields = append(fields, e)
		}
		ms, fs := members(t, pi, e)
		methods, fields = append(methods, ms...), append(fields, fs...)
	}
	return methods, fields
}

// surface lists iter's exported declarations, as "Name" for a top-level
// one and "Type.Method" for a method reachable through a type, and the
// exported fields of its struct types as "Type.Field", given the parsed
// files of iter and of the package its aliases point into.
func surface(t *testing.T, it, pipe pkgInfo) (decls, fields []string) {
	t.Helper()
	for _, n := range it.names {
		decls = append(decls, n)
		ms, fs := members(t, it, n)
		if target, ok := it.aliases[n]; ok {
			ms, fs = members(t, pipe, target)
		}
		for _, m := range ms {
			decls = append(decls, n+"."+m)
		}
		for _, f := range fs {
			fields = append(fields, n+"."+f)
		}
	}
	sort.Strings(decls)
	sort.Strings(fields)
	return decls, fields
}

// checkSurface returns what is wrong with a surface: too many declarations,
// or a plumbing name among them or among the fields.
func checkSurface(decls, fields []string) []string {
	var errs []string
	if len(decls) > maxSurface {
		errs = append(errs, "iter exports "+strconv.Itoa(len(decls))+" declarations counting methods, more than "+strconv.Itoa(maxSurface)+": "+strings.Join(decls, ", "))
	}
	for _, n := range append(append([]string(nil), decls...), fields...) {
		last := n[strings.LastIndex(n, ".")+1:]
		for _, p := range plumbing {
			if p == n || (!strings.Contains(p, ".") && p == last) {
				errs = append(errs, "iter exports "+n+", plumbing that only par uses: it belongs in internal/pipe")
			}
		}
	}
	return errs
}

// TestSurface: iter exports at most maxSurface declarations, counting the
// methods reachable through its types, and none of the plumbing.
func TestSurface(t *testing.T) {
	fset := token.NewFileSet()
	it := inspect(parseDir(t, fset, "."))
	pipe := inspect(parseDir(t, fset, filepath.Join("..", "internal", "pipe")))
	decls, fields := surface(t, it, pipe)
	for _, e := range checkSurface(decls, fields) {
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
	parse := func(src string) pkgInfo {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return inspect([]*ast.File{f})
	}
	it := parse("package iter\nimport \"p\"\ntype Spec[T any] = p.Spec[T]\nfunc FlagBlock() {}\nconst N = 1\ntype Reducer[A any] struct { Fold func(); SeqLen func() }\ntype F interface { Err() error }\n")
	pipe := parse("package p\ntype Spec[T any] struct { Lo int; Config }\ntype Config struct { Unordered bool }\nfunc (c Config) Bound() {}\nfunc (s *Spec[T]) Each() {}\nfunc (s *Spec[T]) IsSeq() {}\nfunc (s *Spec[T]) item() {}\n")
	decls, fields := surface(t, it, pipe)
	want := []string{"F", "F.Err", "FlagBlock", "N", "Reducer", "Spec", "Spec.Bound", "Spec.Each", "Spec.IsSeq"}
	if strings.Join(decls, " ") != strings.Join(want, " ") {
		t.Fatalf("surface = %v, want %v", decls, want)
	}
	wantFields := []string{"Reducer.Fold", "Reducer.SeqLen", "Spec.Config", "Spec.Lo", "Spec.Unordered"}
	if strings.Join(fields, " ") != strings.Join(wantFields, " ") {
		t.Fatalf("fields = %v, want %v", fields, wantFields)
	}
	errs := strings.Join(checkSurface(decls, fields), "\n")
	for _, w := range []string{"exports FlagBlock", "exports Spec.IsSeq", "exports Reducer.SeqLen"} {
		if !strings.Contains(errs, w) {
			t.Errorf("checkSurface = %q, want %q reported", errs, w)
		}
	}
	if strings.Contains(errs, "Spec.Unordered") || strings.Count(errs, "\n") != 2 {
		t.Errorf("checkSurface = %q, want three errors, and Spec.Unordered (not Reducer's) not among them", errs)
	}
	many := make([]string, maxSurface+1)
	for i := range many {
		many[i] = "N" + strconv.Itoa(i)
	}
	if errs := checkSurface(many, nil); len(errs) != 1 || !strings.Contains(errs[0], "more than "+strconv.Itoa(maxSurface)) {
		t.Errorf("checkSurface of %d names = %q, want one error over the limit", len(many), errs)
	}
	if errs := checkSurface(many[:maxSurface], nil); len(errs) != 0 {
		t.Errorf("checkSurface of %d names = %q, want none", maxSurface, errs)
	}
}
