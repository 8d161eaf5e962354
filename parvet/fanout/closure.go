package fanout

import (
	"go/ast"
	"go/token"
	"go/types"
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
	if decl == nil || !p.sameNamesAt(f.closure, f.loop.Pos(), nil) {
		return false
	}
	f.lit, f.named, f.closDecl = f.closure, "", decl
	return true
}

// sameNamesAt reports whether every name that lit uses from outside it,
// but for the objects params holds, resolves to the same object at pos: no
// declaration between the two shadows one.
func (p *pass) sameNamesAt(lit *ast.FuncLit, pos token.Pos, params map[types.Object]bool) bool {
	scope := p.Pkg.Scope().Innermost(pos)
	if scope == nil {
		return false
	}
	same := true
	sels := map[*ast.Ident]bool{} // pkg.Name, x.Field: resolved through what they select from
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			sels[sel.Sel] = true
		}
		id, ok := n.(*ast.Ident)
		if !ok || sels[id] {
			return same
		}
		o := p.TypesInfo.Uses[id]
		if o == nil || o.Parent() == nil || (lit.Pos() <= o.Pos() && o.Pos() < lit.End()) || params[o] {
			return same // a field or method, declared inside lit, or a parameter
		}
		if _, at := scope.LookupParent(id.Name, pos); at != o {
			same = false
		}
		return same
	})
	return same
}

// inlineFunc reports whether the rewrite may take f's worker, a function
// of the package that drains the channel (go drain(jobs, out, &wg)), as if
// the go statement started a literal with its body, and if so makes that
// f's literal: the callback then takes the function's body. That keeps the
// program's meaning where the function returns nothing and each parameter
// its body uses is passed a variable of the same name, which the name
// means at the loop too, so that the body's text means the same there; the
// group may appear only in the Done statements the rewrite drops. Every
// other name the body uses must mean the same at the loop as in the
// function. The function stays, for its other callers.
func (p *pass) inlineFunc(f *fan) bool {
	fd := f.fn
	if fd == nil || f.shape != "workers" || f.ch == nil || fd.Type.TypeParams != nil ||
		(fd.Type.Results != nil && len(fd.Type.Results.List) > 0) {
		return false
	}
	group := p.inner(f, f.group)
	var done []ast.Stmt
	for _, st := range fd.Body.List {
		if p.isDone(st, group) {
			done = append(done, st)
		}
	}
	scope := p.Pkg.Scope().Innermost(f.loop.Pos())
	if scope == nil {
		return false
	}
	params := map[types.Object]bool{}
	k := 0
	for _, fld := range fd.Type.Params.List {
		for _, name := range fld.Names {
			if k >= len(f.args) {
				return false
			}
			param, arg := p.TypesInfo.Defs[name], f.args[k]
			k++
			params[param] = true
			if !p.mentionsOutside(fd.Body, param, done) {
				continue
			}
			id, ok := ast.Unparen(arg).(*ast.Ident)
			if !ok || id.Name != name.Name {
				return false
			}
			if _, at := scope.LookupParent(id.Name, f.loop.Pos()); at == nil || at != p.TypesInfo.Uses[id] {
				return false
			}
		}
	}
	if k != len(f.args) {
		return false
	}
	lit := &ast.FuncLit{Type: &ast.FuncType{Func: fd.Body.Lbrace, Params: &ast.FieldList{}}, Body: fd.Body}
	if !p.sameNamesAt(lit, f.loop.Pos(), params) {
		return false
	}
	f.lit, f.named = lit, ""
	return true
}

// isWorker reports whether e, the function a go statement or a Go call
// starts, is f's worker: its literal, the variable that holds it, or the
// function of the package it runs.
func (p *pass) isWorker(e ast.Expr, f *fan) bool {
	e = ast.Unparen(e)
	if id, ok := e.(*ast.Ident); ok && f.fn != nil {
		if fn, ok := p.TypesInfo.Uses[id].(*types.Func); ok && p.funcs[fn] == f.fn {
			return true
		}
	}
	return e == f.lit || f.closDecl != nil && p.objOf(e) == f.closVar
}
