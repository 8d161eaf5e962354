package fanout

import (
	"go/ast"
	"go/token"
)

// inlineClosure reports whether the rewrite may take f's worker, a
// closure that a local variable holds (worker := func() { ... }; go
// worker()), as if the go statement started the literal itself, and if so
// makes it f's literal: the callback then takes the closure's body, and
// the declaration goes. That keeps the program's meaning where the
// variable is declared with := in the statements before the loop, is used
// by the go statement (or the Go call) alone, and every name the body uses
// from outside it means the same at the loop as at the declaration.
func (p *pass) inlineClosure(f *fan) bool {
	if f.closure == nil {
		return false
	}
	uses := 0
	for _, o := range p.TypesInfo.Uses {
		if o == f.closVar {
			uses++
		}
	}
	if uses != 1 {
		return false
	}
	var decl ast.Stmt
	for _, st := range f.list[:f.at] {
		as, ok := st.(*ast.AssignStmt)
		if ok && as.Tok == token.DEFINE && len(as.Lhs) == 1 && len(as.Rhs) == 1 &&
			p.TypesInfo.Defs[as.Lhs[0].(*ast.Ident)] == f.closVar && ast.Unparen(as.Rhs[0]) == f.closure {
			decl = st
		}
	}
	if decl == nil || !p.sameNamesAt(f.closure, f.loop.Pos()) {
		return false
	}
	f.lit, f.named, f.closDecl = f.closure, "", decl
	return true
}

// sameNamesAt reports whether every name that lit uses from outside it
// resolves to the same object at pos: no declaration between the two
// shadows one.
func (p *pass) sameNamesAt(lit *ast.FuncLit, pos token.Pos) bool {
	scope := p.Pkg.Scope().Innermost(pos)
	if scope == nil {
		return false
	}
	same := true
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return same
		}
		o := p.TypesInfo.Uses[id]
		if o == nil || o.Parent() == nil || (lit.Pos() <= o.Pos() && o.Pos() < lit.End()) {
			return same // a field or method, or declared inside lit
		}
		if _, at := scope.LookupParent(id.Name, pos); at != o {
			same = false
		}
		return same
	})
	return same
}

// isWorker reports whether e, the function a go statement or a Go call
// starts, is f's worker: its literal, or the variable that holds it.
func (p *pass) isWorker(e ast.Expr, f *fan) bool {
	e = ast.Unparen(e)
	return e == f.lit || f.closDecl != nil && p.objOf(e) == f.closVar
}
