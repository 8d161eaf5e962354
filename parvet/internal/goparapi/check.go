package goparapi

import (
	_ "embed"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"go/version"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
)

// CheckFix type-checks the package of pass with the edits of fix applied to
// the file that holds them, in memory, and returns the first error the
// rewritten package has, or nil. An import the package did not have before
// is the package the analysis loaded where it is among the package's
// dependencies (context, maps), else, for gopar's par, a stub of its API
// (parstub.go.txt, which a test keeps to par's signatures), and for a
// standard package, the package type-checked from Go's source. Any other
// import stands for a package that is not loaded: what the code uses of it
// is not checked, and the rest is. So a name declared twice, a variable
// that := no longer declares, a type that no longer fits, and an argument
// of the wrong type to a par call (Blocking's limit as a uint) are caught
// before parvet offers the fix. An import that the fix leaves unused is not
// an error: the driver that applies fixes removes it. The package's other
// files are checked as declarations only (declarations): a fix changes one
// file, and an error it makes is in that file, so a check costs that file,
// not the package.
func CheckFix(pass *analysis.Pass, file *ast.File, fix analysis.SuggestedFix) error {
	if file == nil {
		return errors.New("the file is not in the analysis")
	}
	tf := pass.Fset.File(file.Pos())
	if tf == nil {
		return errors.New("the file is not in the analysis")
	}
	src, err := pass.ReadFile(tf.Name())
	if err != nil {
		return err
	}
	edited, err := applyEdits(src, tf.Base(), fix.TextEdits)
	if err != nil {
		return err
	}
	rewritten, err := parser.ParseFile(pass.Fset, tf.Name(), edited, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	files := make([]*ast.File, len(pass.Files))
	for i, f := range pass.Files {
		if f == file {
			files[i] = rewritten
		} else {
			files[i] = declarations(f)
		}
	}
	var first error
	conf := types.Config{
		Importer:  importerFor(pass.Pkg),
		Sizes:     pass.TypesSizes,
		GoVersion: fixGoVersion(pass.Pkg.GoVersion()),
		Error: func(err error) {
			var te types.Error
			if first != nil || !errors.As(err, &te) || pass.Fset.File(te.Pos) != pass.Fset.File(rewritten.Pos()) {
				return // only the rewritten file's: the others are declarations only
			}
			if msg := te.Msg; !strings.Contains(msg, "could not import") && !(strings.Contains(msg, "imported") && strings.HasSuffix(msg, "and not used")) {
				first = err
			}
		},
	}
	conf.Check(pass.Pkg.Path(), pass.Fset, files, nil)
	return first
}

// GoLine is the go line of gopar's go.mod: a module that requires gopar
// has at least this version, and so does code that a fix rewrites.
const GoLine = "go1.24"

// fixGoVersion returns the language version a rewritten package is checked
// at: the package's, or GoLine where that is older (or unknown), since the
// fix's import of gopar raises the module's go line to it.
func fixGoVersion(v string) string {
	if v == "" || version.Compare(v, GoLine) < 0 {
		return GoLine
	}
	return v
}

// FileOf returns the file of pass that holds pos, or nil.
func FileOf(pass *analysis.Pass, pos token.Pos) *ast.File {
	for _, f := range pass.Files {
		if f.FileStart <= pos && pos <= f.FileEnd {
			return f
		}
	}
	return nil
}

// ErrorText returns err, an error of CheckFix, as a report quotes it: a
// type error as its message and its line ("line 12: no new variables on
// left side of :="), any other as it is.
func ErrorText(fset *token.FileSet, err error) string {
	var te types.Error
	if errors.As(err, &te) {
		return fmt.Sprintf("line %d: %s", fset.Position(te.Pos).Line, te.Msg)
	}
	return err.Error()
}

// declarations returns a copy of f whose functions have no bodies: what the
// rewritten file may refer to in it, checked as declarations only, so that
// checking a fix costs the rewritten file, not the whole package again.
// (go/types accepts a function without a body, as for one in assembly,
// but for init and main, which keep theirs.)
func declarations(f *ast.File) *ast.File {
	c := *f
	c.Decls = slices.Clone(f.Decls)
	for i, d := range c.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && (fd.Recv != nil || fd.Name.Name != "init" && fd.Name.Name != "main") {
			bodyless := *fd
			bodyless.Body = nil
			c.Decls[i] = &bodyless
		}
	}
	return &c
}

// genericBodies returns f as declarations does, but with the bodies of its
// generic functions and methods, which go/types needs to declare them.
func genericBodies(f *ast.File) *ast.File {
	c := declarations(f)
	for i, d := range c.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body == nil && generic(f.Decls[i].(*ast.FuncDecl)) {
			c.Decls[i] = f.Decls[i]
		}
	}
	return c
}

// generic reports whether fd has type parameters, or a receiver of a
// generic type (func (it Iter[T]) ...).
func generic(fd *ast.FuncDecl) bool {
	if fd.Type.TypeParams != nil && len(fd.Type.TypeParams.List) > 0 {
		return true
	}
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return false
	}
	t := fd.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch t.(type) {
	case *ast.IndexExpr, *ast.IndexListExpr:
		return true
	}
	return false
}

// applyEdits returns src with edits applied; base is the position of the
// file's first byte. Edits must not overlap.
func applyEdits(src []byte, base int, edits []analysis.TextEdit) ([]byte, error) {
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(a, b analysis.TextEdit) int { return int(a.Pos) - int(b.Pos) })
	var out []byte
	at := 0
	for _, e := range edits {
		start, end := int(e.Pos)-base, int(e.End)-base
		if e.End == 0 {
			end = start
		}
		if start < at || end < start || end > len(src) {
			return nil, fmt.Errorf("edits overlap or fall outside the file at offset %d", start)
		}
		out = append(out, src[at:start]...)
		out = append(out, e.NewText...)
		at = end
	}
	return append(out, src[at:]...), nil
}

// fixImporter imports, for a rewritten file of pkg, the packages that the
// analysis loaded (pkg's imports and theirs), a stub of gopar's par, and
// the declarations of other standard packages, from Go's source; any other
// import fails, and the type checker then checks the code without that
// package's declarations. The stub and the standard packages import the
// loaded packages where they can, so the types they share with the code
// (context.Context, iter.Seq) are the code's own.
type fixImporter struct {
	mu      sync.Mutex
	loaded  map[string]*types.Package
	checked map[string]*types.Package // the stub and standard packages, as checked here
}

// importers holds each package's fixImporter. A package's fixes are
// checked one at a time, as its pass runs.
var importers sync.Map // *types.Package -> *fixImporter

// importerFor returns pkg's fixImporter.
func importerFor(pkg *types.Package) *fixImporter {
	if imp, ok := importers.Load(pkg); ok {
		return imp.(*fixImporter)
	}
	// A package loaded from export data lists among its imports only
	// those its declarations need (Imports): the rest of what the analysis
	// loaded is found through the types that they declare (referenced).
	imp := &fixImporter{loaded: map[string]*types.Package{}, checked: map[string]*types.Package{}}
	var add func(p *types.Package)
	add = func(p *types.Package) {
		for _, q := range slices.Concat(p.Imports(), referenced(p)) {
			if _, seen := imp.loaded[q.Path()]; !seen {
				imp.loaded[q.Path()] = q
				add(q)
			}
		}
	}
	add(pkg)
	actual, _ := importers.LoadOrStore(pkg, imp)
	return actual.(*fixImporter)
}

// Import returns the package of path: one the analysis loaded, the stub of
// par, or a standard package's declarations.
func (imp *fixImporter) Import(path string) (*types.Package, error) {
	if p := imp.loaded[path]; p != nil && p.Complete() {
		return p, nil
	}
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	imp.mu.Lock()
	p, done := imp.checked[path]
	imp.mu.Unlock()
	if done {
		if p == nil {
			return nil, fmt.Errorf("%s could not be checked", path)
		}
		return p, nil
	}
	switch {
	case path == ParPath:
		p = imp.check(path, []string{"par.go"}, [][]byte{stubSource})
	case isStd(path) && path != "C":
		p = imp.checkStd(path)
		if partial := imp.loaded[path]; partial != nil {
			// Export data holds what the loaded packages use of path,
			// as a package that is not complete, which go/types does
			// not import: its objects, which the loaded code's types
			// name, and the rest from source.
			p = merged(partial, p)
		}
	default:
		return nil, fmt.Errorf("%s is not loaded", path)
	}
	imp.mu.Lock()
	imp.checked[path] = p
	imp.mu.Unlock()
	if p == nil {
		return nil, fmt.Errorf("%s could not be checked", path)
	}
	return p, nil
}

// merged returns a complete package of partial's path with partial's
// objects, and those of full (nil, or the same package checked from
// source) that partial lacks.
func merged(partial, full *types.Package) *types.Package {
	p := types.NewPackage(partial.Path(), partial.Name())
	for _, name := range partial.Scope().Names() {
		p.Scope().Insert(partial.Scope().Lookup(name))
	}
	if full != nil {
		for _, name := range full.Scope().Names() {
			if p.Scope().Lookup(name) == nil {
				p.Scope().Insert(full.Scope().Lookup(name))
			}
		}
	}
	p.MarkComplete()
	return p
}

// refs holds, for each package, the packages its declarations refer to.
var refs sync.Map // *types.Package -> []*types.Package

// referenced returns the packages that the types of pkg's package-level
// declarations (and their methods) refer to.
func referenced(pkg *types.Package) []*types.Package {
	if r, ok := refs.Load(pkg); ok {
		return r.([]*types.Package)
	}
	seen := map[types.Type]bool{}
	found := map[*types.Package]bool{}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Named:
			if p := t.Obj().Pkg(); p != nil && p != pkg {
				found[p] = true
				return // its own declarations are its package's
			}
			for i := range t.NumMethods() {
				walk(t.Method(i).Type())
			}
			walk(t.Underlying())
			for i := range t.TypeArgs().Len() {
				walk(t.TypeArgs().At(i))
			}
		case *types.Alias:
			walk(types.Unalias(t))
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Chan:
			walk(t.Elem())
		case *types.Signature:
			walk(t.Params())
			walk(t.Results())
			if r := t.Recv(); r != nil {
				walk(r.Type())
			}
		case *types.Tuple:
			for i := range t.Len() {
				walk(t.At(i).Type())
			}
		case *types.Struct:
			for i := range t.NumFields() {
				walk(t.Field(i).Type())
			}
		case *types.Interface:
			for i := range t.NumMethods() {
				walk(t.Method(i).Type())
			}
			for i := range t.NumEmbeddeds() {
				walk(t.EmbeddedType(i))
			}
		case *types.Union:
			for i := range t.Len() {
				walk(t.Term(i).Type())
			}
		case *types.TypeParam:
			walk(t.Constraint())
		}
	}
	for _, name := range pkg.Scope().Names() {
		walk(pkg.Scope().Lookup(name).Type())
	}
	list := slices.Collect(maps.Keys(found))
	refs.Store(pkg, list)
	return list
}

// par returns the stub of gopar's par as imp checks it, or nil.
func (imp *fixImporter) par() *types.Package {
	p, _ := imp.Import(ParPath)
	return p
}

// stubSource is a stub of gopar's par package: its exported API, the
// testdata stub that the analyzers' tests run against (a test keeps the
// two the same, and the API par's).
//
//go:embed parstub.go.txt
var stubSource []byte

// checkStd returns the declarations of the standard package of path, from
// Go's source (nil where it has none).
func (imp *fixImporter) checkStd(path string) *types.Package {
	bp, err := build.Default.Import(path, "", 0)
	if err != nil || len(bp.GoFiles) == 0 {
		return nil
	}
	var srcs [][]byte
	var names []string
	for _, name := range bp.GoFiles {
		src, err := os.ReadFile(filepath.Join(bp.Dir, name))
		if err != nil {
			return nil
		}
		srcs, names = append(srcs, src), append(names, name)
	}
	return imp.check(path, names, srcs)
}

// check type-checks the declarations of the files, srcs named by names,
// as the package of path, with imp importing what they import; errors,
// which the bodies left out and build tags make, do not stop it.
func (imp *fixImporter) check(path string, names []string, srcs [][]byte) *types.Package {
	fset := token.NewFileSet()
	var files []*ast.File
	for i, src := range srcs {
		f, err := parser.ParseFile(fset, names[i], src, parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		files = append(files, genericBodies(f))
	}
	conf := types.Config{Importer: imp, Error: func(error) {}, FakeImportC: true}
	pkg, _ := conf.Check(path, fset, files, nil)
	return pkg
}
