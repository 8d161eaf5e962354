// Package surface counts what a facade package exports, for the test that
// bounds the public surface of iter: each exported declaration,
// each method reachable through its types (through an alias into the engine
// package, an embedded type, an interface), and each exported field, and
// checks them against a limit and a list of plumbing names that only the
// layers above may use. Its test is iter's TestSurfaceCheckFails, which
// checks it on small sources.
package surface

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Parse parses the non-test Go files of dir that build for this toolchain
// and platform.
func Parse(fset *token.FileSet, dir string) ([]*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
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
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s has no Go files", dir)
	}
	return files, nil
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

// Info is what the surface needs of a package: its exported top-level
// names, the exported methods of each type (an interface's included), the
// exported fields of each struct type, the target of each alias into the
// other package, and the types each struct type embeds, whose methods and
// fields it promotes.
type Info struct {
	names    []string
	methods  map[string][]string
	fields   map[string][]string
	aliases  map[string]string
	embedded map[string][]string
}

// Inspect gathers the Info of a package from its parsed files.
func Inspect(files []*ast.File) Info {
	pi := Info{methods: map[string][]string{}, fields: map[string][]string{}, aliases: map[string]string{}, embedded: map[string][]string{}}
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
func members(pi Info, name string, errs *[]string) (methods, fields []string) {
	methods, fields = pi.methods[name], pi.fields[name]
	for _, e := range pi.embedded[name] {
		if e == "" {
			*errs = append(*errs, name+" embeds a type of another package, whose promoted methods are part of the surface: name the field")
			continue
		}
		if ast.IsExported(e) {
			fields = append(fields, e)
		}
		ms, fs := members(pi, e, errs)
		methods, fields = append(methods, ms...), append(fields, fs...)
	}
	return methods, fields
}

// List lists a facade's exported declarations, as "Name" for a top-level
// one and "Type.Method" for a method reachable through a type, and the
// exported fields of its struct types as "Type.Field", given the Info of
// the facade and of the package its aliases point into (engine). errs says
// what it could not count: a type of another package embedded.
func List(facade, engine Info) (decls, fields, errs []string) {
	for _, n := range facade.names {
		decls = append(decls, n)
		ms, fs := members(facade, n, &errs)
		if target, ok := facade.aliases[n]; ok {
			ms, fs = members(engine, target, &errs)
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
	return decls, fields, errs
}

// A Rule is what a facade may export: at most Max declarations counting
// methods, and none of Plumbing. A Plumbing name with a dot
// ("Reducer.SeqLen") is a field or method of that type only; one without is
// any declaration, method or field of that name. Pkg names the facade in
// the errors, and Home says where the plumbing belongs and who uses it
// ("only par uses: it belongs in internal/pipe").
type Rule struct {
	Pkg      string
	Max      int
	Plumbing []string
	Home     string
}

// Check returns what is wrong with a surface: too many declarations, or a
// plumbing name among them or among the fields.
func (r Rule) Check(decls, fields []string) []string {
	var errs []string
	if len(decls) > r.Max {
		errs = append(errs, r.Pkg+" exports "+strconv.Itoa(len(decls))+" declarations counting methods, more than "+strconv.Itoa(r.Max)+": "+strings.Join(decls, ", "))
	}
	for _, n := range append(append([]string(nil), decls...), fields...) {
		last := n[strings.LastIndex(n, ".")+1:]
		for _, p := range r.Plumbing {
			if p == n || (!strings.Contains(p, ".") && p == last) {
				errs = append(errs, r.Pkg+" exports "+n+", plumbing that "+r.Home)
			}
		}
	}
	return errs
}
