package callbackrace

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/gopar-dev/gopar/parvet/internal/goparapi"
)

// fix returns the rewrite of a ForEach statement whose callback only sums,
// counts or appends into a captured variable, optionally under an if, into
// the operation that computes that value, or nil where the callback does
// anything else. The rewrite keeps the result: Sum adds, Count counts and
// Collect appends the same items, Collect in source order.
func (c *checker) fix(cb *goparapi.Callback, lit *ast.FuncLit) *analysis.SuggestedFix {
	info := c.pass.TypesInfo
	if cb.Op != "ForEach" || len(cb.Call.Args) != 1 || ast.Unparen(cb.Call.Args[0]) != lit {
		return nil
	}
	switch goparapi.RecvName(cb.Fn) {
	case "Iter", "Nums", "Ints":
	default:
		return nil
	}
	sel, ok := ast.Unparen(cb.Call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	params := lit.Type.Params.List
	if len(params) != 1 || len(params[0].Names) != 1 || len(lit.Body.List) != 1 {
		return nil
	}
	file, stmt := c.enclosingStmt(cb.Call)
	if stmt == nil {
		return nil
	}
	recv := c.src(sel.X)
	itemType := info.TypeOf(params[0].Type)
	item := info.Defs[params[0].Names[0]]
	fn := "func" + c.src(lit.Type.Params)

	body := lit.Body.List[0]
	cond := ""
	if ifs, ok := body.(*ast.IfStmt); ok {
		if ifs.Init != nil || ifs.Else != nil || len(ifs.Body.List) != 1 {
			return nil
		}
		cond = c.src(ifs.Cond)
		body = ifs.Body.List[0]
	}
	parName, importEdits, ok := goparapi.AddImport(c.pass.Pkg, file, goparapi.ParPath, stmt.Pos())
	if !ok {
		return nil
	}
	filtered := recv
	if cond != "" {
		filtered = recv + ".Filter(" + fn + " bool { return " + cond + " })"
	}
	captured := func(e ast.Expr) (*types.Var, bool) {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return nil, false
		}
		v, ok := info.Uses[id].(*types.Var)
		if !ok || v.IsField() || (lit.Pos() <= v.Pos() && v.Pos() < lit.End()) {
			return nil, false
		}
		return v, true
	}
	isItem := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && item != nil && info.Uses[id] == item
	}
	var text, message string
	switch s := body.(type) {
	case *ast.IncDecStmt:
		v, ok := captured(s.X)
		if !ok || !isInteger(v.Type()) {
			return nil
		}
		count := filtered + ".Count()"
		if !types.Identical(v.Type(), types.Typ[types.Int]) {
			t, ok := c.typeString(file, v.Type())
			if !ok {
				return nil
			}
			count = t + "(" + count + ")"
		}
		op := "+="
		if s.Tok == token.DEC {
			op = "-="
		}
		text = c.src(s.X) + " " + op + " " + count
		message = "Count the items with Count"
	case *ast.AssignStmt:
		if len(s.Lhs) != 1 || len(s.Rhs) != 1 {
			return nil
		}
		v, ok := captured(s.Lhs[0])
		if !ok {
			return nil
		}
		switch s.Tok {
		case token.ADD_ASSIGN, token.SUB_ASSIGN:
			if !isNumber(v.Type()) {
				return nil
			}
			sum := ""
			if isItem(s.Rhs[0]) && types.Identical(itemType, v.Type()) && c.isNums(sel.X) {
				sum = filtered + ".Sum()"
			} else {
				t, ok := c.typeString(file, v.Type())
				if !ok {
					return nil
				}
				sum = parName + ".Sum(" + parName + ".Map(" + filtered + ", " + fn + " " + t + " { return " + c.src(s.Rhs[0]) + " }))"
			}
			text = c.src(s.Lhs[0]) + " " + s.Tok.String() + " " + sum
			message = "Sum the items with par.Sum"
		case token.ASSIGN:
			call, ok := ast.Unparen(s.Rhs[0]).(*ast.CallExpr)
			if !ok || !isAppendOf(info, call, s.Lhs[0]) || len(call.Args) != 2 || call.Ellipsis.IsValid() {
				return nil
			}
			sl, ok := v.Type().Underlying().(*types.Slice)
			if !ok {
				return nil
			}
			coll := ""
			if isItem(call.Args[1]) && types.Identical(itemType, sl.Elem()) {
				coll = filtered + ".Collect()"
			} else {
				t, ok := c.typeString(file, sl.Elem())
				if !ok {
					return nil
				}
				coll = parName + ".Map(" + filtered + ", " + fn + " " + t + " { return " + c.src(call.Args[1]) + " }).Collect()"
			}
			lhs := c.src(s.Lhs[0])
			text = lhs + " = append(" + lhs + ", " + coll + "...)"
			message = "Collect the items with Collect, in source order"
		default:
			return nil
		}
	default:
		return nil
	}
	edits := append([]analysis.TextEdit{{Pos: stmt.Pos(), End: stmt.End(), NewText: []byte(text)}}, importEdits...)
	return &analysis.SuggestedFix{Message: message, TextEdits: edits}
}

// isNums reports whether e is a Nums or an Ints, which have Sum.
func (c *checker) isNums(e ast.Expr) bool {
	t := c.pass.TypesInfo.TypeOf(e)
	if t == nil {
		return false
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == goparapi.ParPath &&
		(n.Obj().Name() == "Nums" || n.Obj().Name() == "Ints")
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// enclosingStmt returns the file that holds call and the expression
// statement that is call, or nil if call is part of a larger statement.
func (c *checker) enclosingStmt(call *ast.CallExpr) (*ast.File, ast.Stmt) {
	for _, f := range c.pass.Files {
		if f.FileStart <= call.Pos() && call.End() <= f.FileEnd {
			path, _ := astutil.PathEnclosingInterval(f, call.Pos(), call.End())
			for i, n := range path {
				if n == call && i+1 < len(path) {
					if es, ok := path[i+1].(*ast.ExprStmt); ok {
						return f, es
					}
				}
			}
			return f, nil
		}
	}
	return nil, nil
}

// typeString writes t as code in file may name it, or ok false if it names
// a package that file does not import.
func (c *checker) typeString(file *ast.File, t types.Type) (string, bool) {
	ok := true
	s := types.TypeString(t, func(p *types.Package) string {
		if p == c.pass.Pkg {
			return ""
		}
		name := goparapi.PackageName(file, p)
		if name == "" {
			ok = false
		}
		return name
	})
	return s, ok
}

// src returns the source text of n.
func (c *checker) src(n ast.Node) string {
	tf := c.pass.Fset.File(n.Pos())
	content, err := c.pass.ReadFile(tf.Name())
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(content[tf.Offset(n.Pos()):tf.Offset(n.End())]))
}
