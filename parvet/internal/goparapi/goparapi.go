// Package goparapi describes gopar's API for the parvet analyzers: the
// packages by path, which parameters of which operations hold callbacks that
// run concurrently, and helpers that both analyzers share.
package goparapi

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// The import paths of gopar's packages that run callbacks.
const (
	ParPath     = "github.com/gopar-dev/gopar/par"
	RuntimePath = "github.com/gopar-dev/gopar/runtime"
)

// Kind says how the calls of one callback parameter overlap.
type Kind int

const (
	// Serial callbacks run one call at a time (WithProgress's report, the
	// sequence of FromSeq, a Scope's body): writes in them race with nothing
	// parvet can see.
	Serial Kind = iota
	// Many callbacks are called many times at once: every item of a
	// pipeline, the two calls of JoinFunc, a block body.
	Many
	// Sibling callbacks run once each, at the same time as the other
	// callbacks of the same call (Join's a and b, JoinAll's functions).
	Sibling
	// Spawned callbacks are tasks started asynchronously (Group.Go,
	// Pool.Go, Scope.Spawn): one per call, so a spawn in a loop runs many
	// at once.
	Spawned
)

// Callback is the role of one argument of a call into gopar.
type Callback struct {
	Kind  Kind
	Op    string          // the operation's name, as users write it: "ForEach", "Join"
	Param *types.Var      // the callee's parameter (nil for a variadic element)
	Call  *ast.CallExpr   // the call into gopar
	Fn    *types.Func     // the callee
	Recv  *types.TypeName // the receiver's named type, if a method
}

// IsGopar reports whether pkg is one of gopar's callback-running packages.
func IsGopar(pkg *types.Package) bool {
	return pkg != nil && (pkg.Path() == ParPath || IsRuntime(pkg))
}

// IsRuntime reports whether pkg is gopar's worker pool, package runtime.
func IsRuntime(pkg *types.Package) bool {
	return pkg != nil && pkg.Path() == RuntimePath
}

// Callee returns the function or method that call calls, if it is a static
// call to a declared function.
func Callee(info *types.Info, call *ast.CallExpr) *types.Func {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	return fn
}

// RecvName returns the name of fn's receiver's named type ("Iter", "Pool"),
// or "" for a function.
func RecvName(fn *types.Func) string {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// KindOf returns how the calls of the callback passed as parameter param (its
// index in the callee's signature) of fn overlap.
func KindOf(fn *types.Func, param int) Kind {
	recv, name := RecvName(fn), fn.Name()
	switch fn.Pkg().Path() {
	case ParPath:
		switch {
		case name == "WithProgress", name == "FromSeq":
			return Serial
		case recv == "" && (name == "Scope" || name == "TryScope"):
			return Serial // the body; its tasks come through Go
		case recv == "" && (name == "Join" || name == "JoinAll"):
			return Sibling
		case (recv == "Group" || recv == "TryGroup") && name == "Go":
			return Spawned
		}
		return Many
	case RuntimePath:
		switch {
		case name == "JoinFunc":
			return Many
		case (recv == "Pool" || recv == "Worker") && name == "Join":
			return Sibling
		case recv == "Pool" && name == "Go", recv == "Scope" && name == "Spawn":
			return Spawned
		}
	}
	return Serial
}

// Callbacks returns the role of each function literal passed, directly or
// through a local variable assigned once, to a call into gopar in the files
// of pass.
func Callbacks(pass *analysis.Pass) map[*ast.FuncLit]*Callback {
	// Local variables bound once to a function literal: f := func(...) {...}.
	bound := map[types.Object]*ast.FuncLit{}
	assigned := map[types.Object]int{}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					id, ok := lhs.(*ast.Ident)
					if !ok {
						continue
					}
					obj := pass.TypesInfo.ObjectOf(id)
					if obj == nil {
						continue
					}
					assigned[obj]++
					if len(n.Rhs) == len(n.Lhs) {
						if lit, ok := n.Rhs[i].(*ast.FuncLit); ok {
							bound[obj] = lit
						}
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					obj := pass.TypesInfo.ObjectOf(id)
					if i < len(n.Values) {
						assigned[obj]++
						if lit, ok := n.Values[i].(*ast.FuncLit); ok {
							bound[obj] = lit
						}
					}
				}
			case *ast.UnaryExpr:
				if id, ok := n.X.(*ast.Ident); ok && n.Op == token.AND {
					assigned[pass.TypesInfo.ObjectOf(id)] += 2 // its address escapes
				}
			}
			return true
		})
	}
	out := map[*ast.FuncLit]*Callback{}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := Callee(pass.TypesInfo, call)
			if fn == nil || !IsGopar(fn.Pkg()) {
				return true
			}
			sig := fn.Type().(*types.Signature)
			for i, arg := range call.Args {
				var lit *ast.FuncLit
				switch a := ast.Unparen(arg).(type) {
				case *ast.FuncLit:
					lit = a
				case *ast.Ident:
					if obj := pass.TypesInfo.ObjectOf(a); obj != nil && assigned[obj] == 1 {
						lit = bound[obj]
					}
				}
				if lit == nil {
					continue
				}
				pi := i
				if sig.Variadic() && pi >= sig.Params().Len()-1 {
					pi = sig.Params().Len() - 1
				}
				var param *types.Var
				if pi < sig.Params().Len() {
					param = sig.Params().At(pi)
				}
				out[lit] = &Callback{
					Kind:  KindOf(fn, pi),
					Op:    fn.Name(),
					Param: param,
					Call:  call,
					Fn:    fn,
				}
			}
			return true
		})
	}
	return out
}

// ImportName returns the name under which file imports path, or "" if it
// does not import it (or imports it as _ or .).
func ImportName(file *ast.File, path string) string {
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != path {
			continue
		}
		if imp.Name != nil {
			if imp.Name.Name == "_" || imp.Name.Name == "." {
				return ""
			}
			return imp.Name.Name
		}
		return path[strings.LastIndex(path, "/")+1:]
	}
	return ""
}

// PackageName returns the name by which file refers to pkg: the import's
// name, or for an import without one, the package's own name (lib for
// example.com/lib/v2), or "" where file does not import it by a name.
func PackageName(file *ast.File, pkg *types.Package) string {
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != pkg.Path() {
			continue
		}
		if imp.Name != nil {
			if imp.Name.Name == "_" || imp.Name.Name == "." {
				return ""
			}
			return imp.Name.Name
		}
		return pkg.Name()
	}
	return ""
}

// AddImport returns the edit that adds an import of path to file, and the
// name by which code at pos refers to the package, or ok false if that name
// means something else at pos. It returns no edit if the file imports path
// already.
func AddImport(pkg *types.Package, file *ast.File, path string, pos token.Pos) (name string, edit []analysis.TextEdit, ok bool) {
	name = ImportName(file, path)
	imported := name != ""
	if !imported {
		name = path[strings.LastIndex(path, "/")+1:]
	}
	if scope := pkg.Scope().Innermost(pos); scope != nil {
		if _, obj := scope.LookupParent(name, pos); obj != nil {
			pn, isPkg := obj.(*types.PkgName)
			if !isPkg || pn.Imported().Path() != path {
				return "", nil, false
			}
		}
	}
	if imported {
		return name, nil, true
	}
	spec := strconv.Quote(path)
	for _, d := range file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		if gd.Lparen.IsValid() {
			text := "\t" + spec + "\n"
			if len(gd.Specs) > 0 {
				last, _ := strconv.Unquote(gd.Specs[len(gd.Specs)-1].(*ast.ImportSpec).Path.Value)
				if isStd(last) != isStd(path) {
					text = "\n" + text // a group of its own, as goimports makes
				}
			}
			return name, []analysis.TextEdit{{Pos: gd.Rparen, End: gd.Rparen, NewText: []byte(text)}}, true
		}
		// import "x" becomes a block with both.
		old := gd.Specs[0].(*ast.ImportSpec)
		oldText := old.Path.Value
		if old.Name != nil {
			oldText = old.Name.Name + " " + oldText
		}
		oldPath, _ := strconv.Unquote(old.Path.Value)
		sep := "\n"
		if isStd(oldPath) != isStd(path) {
			sep = "\n\n"
		}
		text := "import (\n\t" + oldText + sep + "\t" + spec + "\n)"
		return name, []analysis.TextEdit{{Pos: gd.Pos(), End: gd.End(), NewText: []byte(text)}}, true
	}
	return name, []analysis.TextEdit{{Pos: file.Name.End(), End: file.Name.End(), NewText: []byte("\n\nimport " + spec + "\n")}}, true
}

// ImportFirst returns the edit that adds imports of paths, standard
// packages, at the top of file's imports: the first line of its first
// import block, or an import declaration of its own after the package
// clause. Its place differs from AddImport's, so that a fix may add both.
func ImportFirst(file *ast.File, paths ...string) analysis.TextEdit {
	var specs []string
	for _, path := range paths {
		specs = append(specs, strconv.Quote(path))
	}
	for _, d := range file.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT && gd.Lparen.IsValid() {
			return analysis.TextEdit{Pos: gd.Lparen + 1, End: gd.Lparen + 1, NewText: []byte("\n\t" + strings.Join(specs, "\n\t"))}
		}
	}
	return analysis.TextEdit{Pos: file.Name.End(), End: file.Name.End(), NewText: []byte("\n\nimport (\n\t" + strings.Join(specs, "\n\t") + "\n)")}
}

// isStd reports whether path is a standard library package's: its first
// element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
