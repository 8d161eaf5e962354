package fanout

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// groupTaskRewrite returns the rewrite of a pool of errgroup workers
// that share their group with other tasks (a producer that fills the
// channel, a consumer): the workers' loop becomes one task of the same
// group that drains the channel with par.FromChan(ch).TryForEach, and the
// group, its other tasks and its Wait stay as they are.
//
//	for range n {
//		g.Go(func() error {
//			for j := range jobs {
//				if err := do(ctx, j); err != nil {
//					return err
//				}
//			}
//			return nil
//		})
//	}
//
// becomes
//
//	g.Go(func() error {
//		return par.FromChan(jobs).Blocking(n).TryForEach(func(j T) error {
//			if err := do(ctx, j); err != nil {
//				return err
//			}
//			return nil
//		})
//	})
//
// That keeps the program's meaning where a worker returns only an error
// that is not nil, as the body of an if err != nil, and the group has a
// context (WithContext) that every send on the channel watches: a failed
// call then cancels the context, as it did, the producer stops, and
// TryForEach starts no item after it, where the other workers would have
// found the channel closed. Where no call fails, every item runs, as it
// did. A send that does not watch the context would block for ever once
// TryForEach stops pulling, so such a pool gets no fix.
func (p *pass) groupTaskRewrite(f *fan) (*rewrite, string) {
	info := p.TypesInfo
	n := p.workerCount(f.loop)
	if n == nil || f.lit == nil || !p.isGroup(f.group) || f.shape != "workers" {
		return nil, ""
	}
	count := p.src(n)
	if t := info.TypeOf(n); t == nil || !types.Identical(types.Default(t), types.Typ[types.Int]) {
		if b, ok := t.Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
			return nil, "the worker count is not an integer"
		}
		count = "int(" + count + ")" // a count of another integer type (uint)
	}
	if why := p.spawnsOnly(f); why != "" {
		return nil, why
	}
	// The worker: for j := range ch { ... }, then return nil.
	list := f.lit.Body.List
	if len(list) != 2 || !isReturnNil(list[1]) {
		return nil, "the worker does more than drain the channel with one range loop and return nil"
	}
	rng, ok := list[0].(*ast.RangeStmt)
	if !ok || !p.drainsChan(rng, f) {
		return nil, "the worker's range loop uses its variables in another way"
	}
	fails, ok := errReturnsOnly(rng.Body)
	if !ok {
		return nil, "the worker's range loop breaks, continues, or returns other than an error that is not nil"
	}
	if fails && (f.gctx == nil || f.gctx.Name() == "_") {
		return nil, "an errgroup worker that fails stops alone, and the group has no context to stop the others"
	}
	if fails {
		if why := p.sendsWatch(f, f.ch, f.gctx); why != "" {
			return nil, why
		}
	}
	t, why := p.chanItem(rng)
	if why != "" {
		return nil, why
	}
	// The group is declared here, and used only to start its tasks and
	// wait.
	declared := false
	for _, st := range f.list {
		if p.declares(st, f.group) {
			declared = true
		}
	}
	if !declared {
		return nil, "the group is not declared beside the workers (a parameter, a field), where other code may use it"
	}
	for _, st := range f.list {
		if st == f.list[f.at] || st == f.closDecl || p.declares(st, f.group) || !p.mentions(st, f.group) {
			continue
		}
		if !p.startsTask(st, f.group) && !(f.wait >= 0 && st == f.list[f.wait]) {
			return nil, p.line(st, "the group is used other than to start its tasks and wait (a limit, say)")
		}
	}
	var remove []ast.Stmt
	if f.closDecl != nil {
		remove = append(remove, f.closDecl)
	}
	limit := p.workerLimit(n)
	body := p.src(rng.Body)
	if fails {
		body = body[:len(body)-1] + "return nil\n}"
	}
	return &rewrite{
		from:     f.list[f.at].Pos(),
		to:       f.list[f.at].End(),
		source:   "par.FromChan(" + p.src(rng.X) + ")",
		params:   p.itemName(rng) + " " + t,
		body:     body,
		errs:     fails,
		limit:    limit,
		hasLimit: true,
		ioish:    p.ioish(rng.Body),
		remove:   remove,
		task:     p.taskGroup(f),
	}, ""
}

// isReturnNil reports whether st is return nil.
func isReturnNil(st ast.Stmt) bool {
	ret, ok := st.(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	id, ok := ast.Unparen(ret.Results[0]).(*ast.Ident)
	return ok && id.Name == "nil"
}

// errReturnsOnly reports whether body, outside the function literals in
// it, has no break, continue or goto, and returns only err from inside an
// if err != nil (fails says whether it returns at all).
func errReturnsOnly(body *ast.BlockStmt) (fails, ok bool) {
	allowed := map[ast.Stmt]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		is, isIf := n.(*ast.IfStmt)
		if !isIf || len(is.Body.List) != 1 {
			return true
		}
		cond, isBin := is.Cond.(*ast.BinaryExpr)
		ret, isRet := is.Body.List[0].(*ast.ReturnStmt)
		if !isBin || cond.Op != token.NEQ || !isRet || len(ret.Results) != 1 {
			return true
		}
		x, xok := ast.Unparen(cond.X).(*ast.Ident)
		y, yok := ast.Unparen(cond.Y).(*ast.Ident)
		r, rok := ast.Unparen(ret.Results[0]).(*ast.Ident)
		if xok && yok && rok && y.Name == "nil" && x.Name == r.Name {
			allowed[ret] = true
		}
		return true
	})
	ok = true
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BranchStmt:
			ok = false
		case *ast.ReturnStmt:
			if allowed[n] {
				fails = true
			} else {
				ok = false
			}
		}
		return ok
	})
	return fails, ok
}

// sendsWatch says why a send on ch might not watch ctx, or "": every
// send on ch is a case of a select that also receives from ctx.Done(), and
// ch, declared in f's function, goes to no function that could send on it.
func (p *pass) sendsWatch(f *fan, ch, ctx types.Object) string {
	path, _ := astutil.PathEnclosingInterval(p.file, f.loop.Pos(), f.loop.End())
	var fn ast.Node
	for _, n := range path {
		if _, ok := n.(*ast.FuncLit); ok {
			fn = n
			break
		}
		if _, ok := n.(*ast.FuncDecl); ok {
			fn = n
			break
		}
	}
	if fn == nil || ch.Pos() < fn.Pos() || ch.Pos() >= fn.End() {
		return "the channel " + ch.Name() + " comes from outside the function, where a send may not watch the group's context"
	}
	watched := map[ast.Stmt]bool{}
	why := ""
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectStmt:
			if p.watchesDone(n, ctx) {
				for _, c := range n.Body.List {
					if send, ok := c.(*ast.CommClause).Comm.(*ast.SendStmt); ok {
						watched[send] = true
					}
				}
			}
		case *ast.SendStmt:
			if why == "" && p.objOf(n.Chan) == ch && !watched[n] {
				why = p.line(n, "a send on "+ch.Name()+" does not watch the group's context, and would block once TryForEach stops")
			}
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && (id.Name == "close" || id.Name == "len" || id.Name == "cap") {
				return true
			}
			for _, a := range n.Args {
				if why == "" && p.objOf(a) == ch {
					why = "the channel " + ch.Name() + " goes to a function, whose sends may not watch the group's context"
				}
			}
		}
		return why == ""
	})
	return why
}

// watchesDone reports whether sel has a case that receives from
// ctx.Done().
func (p *pass) watchesDone(sel *ast.SelectStmt, ctx types.Object) bool {
	for _, c := range sel.Body.List {
		if p.doneOf(c.(*ast.CommClause).Comm) == ctx {
			return true
		}
	}
	return false
}

// doneOf returns x where comm, a select case, is <-x.Done(), or nil.
func (p *pass) doneOf(comm ast.Stmt) types.Object {
	es, ok := comm.(*ast.ExprStmt)
	if !ok {
		return nil
	}
	call, ok := ast.Unparen(recvChan(es.X)).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Done" {
		return nil
	}
	return p.objOf(sel.X)
}

// workerLimit returns the Blocking limit for n workers, as an int: n
// where it is a constant above 0, else max(n, 1), as a count of no workers
// (a pool sized by its items, none of them) would make Blocking panic.
func (p *pass) workerLimit(n ast.Expr) string {
	text := p.src(n)
	if t := p.TypesInfo.TypeOf(n); t != nil && !types.Identical(types.Default(t), types.Typ[types.Int]) {
		text = "int(" + text + ")" // a count of another integer type (uint)
	}
	if tv := p.TypesInfo.Types[n]; tv.Value != nil && constant.Sign(tv.Value) > 0 {
		return text
	}
	return "max(" + text + ", 1)"
}

// drainsChan reports whether rng, a worker's loop, receives f's channel's
// items into a variable of its own (for j := range ch) or none (for range
// ch).
func (p *pass) drainsChan(rng *ast.RangeStmt, f *fan) bool {
	return rng.Value == nil && (rng.Key == nil || rng.Tok == token.DEFINE) && p.outer(f, p.objOf(rng.X)) == f.ch
}

// itemName returns the name of the callback's item parameter for rng, a
// worker's loop: its variable, or _ where it has none.
func (p *pass) itemName(rng *ast.RangeStmt) string {
	if rng.Key == nil {
		return "_"
	}
	return p.src(rng.Key)
}

// chanItem returns the item type of the channel that rng, a worker's
// range loop, drains, as the file writes it, or why the rewrite cannot
// use it.
func (p *pass) chanItem(rng *ast.RangeStmt) (string, string) {
	ct, ok := p.TypesInfo.TypeOf(rng.X).Underlying().(*types.Chan)
	if !ok || rng.Key != nil && !types.Identical(ct.Elem(), p.TypesInfo.TypeOf(rng.Key)) {
		return "", "the worker's variable has another type than the channel's items"
	}
	t, ok := p.typeString(ct.Elem())
	if !ok {
		return "", "the item type names a package the file does not import"
	}
	return t, ""
}

// startsTask reports whether st is a call of g's Go method.
func (p *pass) startsTask(st ast.Stmt, g types.Object) bool {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := ast.Unparen(es.X).(*ast.CallExpr)
	return ok && p.isCall(call, g, "Go")
}

// taskGroup returns the source of the group whose Go starts f's workers.
func (p *pass) taskGroup(f *fan) string {
	for _, st := range loopBody(f.loop).List {
		if p.startsTask(st, f.group) {
			call := ast.Unparen(st.(*ast.ExprStmt).X).(*ast.CallExpr)
			return p.src(ast.Unparen(call.Fun).(*ast.SelectorExpr).X)
		}
	}
	return f.group.Name()
}
