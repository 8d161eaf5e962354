package goparapi

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"go/version"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// CheckFix type-checks the package of pass with the edits of fix applied to
// the file that holds them, in memory, and returns the first error the
// rewritten package has, or nil. An import the package did not have before
// (gopar's par, context) stands for a package that is not loaded: what the
// code uses of it is not checked, and the rest is (a name declared twice, a
// variable that := no longer declares, a type that no longer fits). An
// import that the fix leaves unused is not an error: the driver that
// applies fixes removes it. So a fix that breaks the code around it is
// caught before parvet offers it. The package's other files are checked as
// declarations only (declarations): a fix changes one file, and an error
// it makes is in that file, so a check costs that file, not the package.
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
		Importer:  loadedImporter{pass.Pkg},
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

// loadedImporter imports the packages that pkg imports, as the analysis
// loaded them; any other import fails, and the type checker then checks
// the code without that package's declarations.
type loadedImporter struct{ pkg *types.Package }

// Import returns the package of path that pkg imports, directly.
func (l loadedImporter) Import(path string) (*types.Package, error) {
	for _, p := range l.pkg.Imports() {
		if p.Path() == path {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%s is not loaded", path)
}
