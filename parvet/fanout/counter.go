package fanout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// indexCounter is a pool of workers that take the items' indexes from an
// atomic counter, as hand-written pools over a slice do:
//
//	var next atomic.Int64
//	for w := 0; w < n; w++ {
//		wg.Add(1)
//		go func() {
//			defer wg.Done()
//			for {
//				i := int(next.Add(1)) - 1
//				if i >= len(xs) {
//					return
//				}
//				... xs[i] ...
//			}
//		}()
//	}
//	wg.Wait()
//
// Every index below the bound runs once, on whichever worker takes it: what
// par.Range(0, len(xs)).ForEach does, with Blocking(n) keeping the pool's
// limit.
type indexCounter struct {
	ctr   types.Object    // the counter
	index *ast.Ident      // the index the loop takes (i)
	bound ast.Expr        // where the indexes end (len(xs))
	loop  *ast.ForStmt    // the worker's endless loop: its body past the first two statements is the item's work
	take  *ast.AssignStmt // i := int(next.Add(1)) - 1
}

// counterWorker returns f's counter pool, or nil: f is a counted loop of
// go statements (or wg.Go) whose goroutine, but for its Done, is one
// endless for loop; the loop takes an int index from a counter that starts
// at zero, returns (or breaks) once it reaches a bound that the goroutine
// does not change, and does not otherwise leave the loop.
func (p *pass) counterWorker(f *fan) *indexCounter {
	if f.lit == nil || (f.shape != "waitgroup" && f.shape != "wg.Go") || p.count(f.loop) == nil {
		return nil
	}
	var loop *ast.ForStmt
	for _, st := range f.lit.Body.List {
		if f.shape == "waitgroup" && p.isDone(st, f.group) {
			continue
		}
		fs, ok := st.(*ast.ForStmt)
		if !ok || loop != nil || fs.Init != nil || fs.Cond != nil || fs.Post != nil {
			return nil
		}
		loop = fs
	}
	if loop == nil || len(loop.Body.List) < 3 {
		return nil
	}
	take, ok := loop.Body.List[0].(*ast.AssignStmt)
	if !ok || take.Tok != token.DEFINE || len(take.Lhs) != 1 || len(take.Rhs) != 1 {
		return nil
	}
	id, ok := take.Lhs[0].(*ast.Ident)
	if !ok || !types.Identical(p.TypesInfo.TypeOf(id), types.Typ[types.Int]) {
		return nil
	}
	ctr := p.nextIndex(take.Rhs[0])
	if ctr == nil || !p.endsAt(loop.Body.List[1], id) {
		return nil
	}
	bound := loop.Body.List[1].(*ast.IfStmt).Cond.(*ast.BinaryExpr).Y
	if !p.fixedIn(bound, f.lit.Body) || hasBranch(&ast.BlockStmt{List: loop.Body.List[2:]}) {
		return nil
	}
	return &indexCounter{ctr: ctr, index: id, bound: bound, loop: loop, take: take}
}

// nextIndex returns the counter that e takes the next index from, one
// past the last taken: int(c.Add(1)) - 1 with c an atomic.Int64, Int32,
// Uint64 or Uint32, or int(atomic.AddInt64(&c, 1)) - 1 and its kin; nil if
// e is none of them.
func (p *pass) nextIndex(e ast.Expr) types.Object {
	sub, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || sub.Op != token.SUB || !isOne(p.TypesInfo, sub.Y) {
		return nil
	}
	conv, ok := ast.Unparen(sub.X).(*ast.CallExpr)
	if !ok || len(conv.Args) != 1 || !p.TypesInfo.Types[conv.Fun].IsType() {
		return nil
	}
	add, ok := ast.Unparen(conv.Args[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	sel, ok := ast.Unparen(add.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	switch fn, _ := p.TypesInfo.Uses[sel.Sel].(*types.Func); {
	case fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "sync/atomic":
		return nil
	case sel.Sel.Name == "Add" && len(add.Args) == 1 && isOne(p.TypesInfo, add.Args[0]):
		return p.objOf(sel.X)
	case len(add.Args) == 2 && isOne(p.TypesInfo, add.Args[1]) && (sel.Sel.Name == "AddInt64" || sel.Sel.Name == "AddInt32" || sel.Sel.Name == "AddUint64" || sel.Sel.Name == "AddUint32"):
		if u, ok := ast.Unparen(add.Args[0]).(*ast.UnaryExpr); ok && u.Op == token.AND {
			return p.objOf(u.X)
		}
	}
	return nil
}

// isOne reports whether e is the constant 1.
func isOne(info *types.Info, e ast.Expr) bool {
	tv := info.Types[e]
	return tv.Value != nil && tv.Value.ExactString() == "1"
}

// endsAt reports whether st is if i >= bound { return } (or break), with no
// else.
func (p *pass) endsAt(st ast.Stmt, i *ast.Ident) bool {
	ifs, ok := st.(*ast.IfStmt)
	if !ok || ifs.Init != nil || ifs.Else != nil || len(ifs.Body.List) != 1 {
		return false
	}
	cond, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
	if !ok || cond.Op != token.GEQ || p.objOf(cond.X) != p.TypesInfo.Defs[i] {
		return false
	}
	switch end := ifs.Body.List[0].(type) {
	case *ast.ReturnStmt:
		return len(end.Results) == 0
	case *ast.BranchStmt:
		return end.Tok == token.BREAK && end.Label == nil
	}
	return false
}

// fixedIn reports whether e, a loop's bound, has the same value all
// through body: a constant, a variable, or len of a variable, that body
// does not assign.
func (p *pass) fixedIn(e ast.Expr, body ast.Node) bool {
	e = ast.Unparen(e)
	if tv := p.TypesInfo.Types[e]; tv.Value != nil {
		return true
	}
	if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 1 {
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "len" {
			if _, builtin := p.TypesInfo.Uses[id].(*types.Builtin); builtin {
				e = ast.Unparen(call.Args[0])
			}
		}
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := p.TypesInfo.Uses[id].(*types.Var)
	return ok && !p.changedIn(v, body)
}

// counterReport returns what a counter pool is, and the gopar form that
// replaces it, for the report.
func (p *pass) counterReport(f *fan, c *indexCounter) (what, form string) {
	n, src := p.loopCount(f), "par.Range(0, "+p.src(c.bound)+")"
	what = fmt.Sprintf("a pool of %s worker goroutines taking indexes from the counter %s", n, c.ctr.Name())
	if strings.Contains(strings.ToLower(n), "worker") {
		// "a pool of workers worker goroutines": the count names them.
		what = fmt.Sprintf("a pool of worker goroutines (as many as %s) taking indexes from the counter %s", n, c.ctr.Name())
	}
	form = fmt.Sprintf("%s.Blocking(%s).ForEach (at most %s at once) for work that blocks on I/O, or %s.ForEach on the pool for CPU-bound work", src, n, n, src)
	return what, form
}

// counterRewrite turns loopRewrite's r, which would start a callback per
// worker, into one callback per index: par.Range(0, bound) over what the
// worker's loop does with the index, at most as many at once as there were
// workers. The counter goes, where it is declared just for this, at zero,
// and used nowhere else.
func (p *pass) counterRewrite(f *fan, c *indexCounter, r *rewrite) (*rewrite, string) {
	var decl ast.Stmt
	for _, st := range f.list[:f.at] {
		if p.declaresZero(st, c.ctr) {
			decl = st
		}
	}
	if decl == nil {
		return nil, "the counter " + c.ctr.Name() + " is not declared at zero just for this pool"
	}
	r.remove = append(r.remove, decl)
	if p.usedOutside(c.ctr, r.remove, r.from, r.to) || p.mentionsBut(f.lit.Body, c.ctr, c.take) {
		return nil, "the counter " + c.ctr.Name() + " is used outside the pool's loop"
	}
	r.source = "par.Range(0, " + p.src(c.bound) + ")"
	r.params = c.index.Name + " int"
	r.itemFirst, r.prelude, r.useIndexed = "", nil, false
	r.body = p.bodyWithout(c.loop.Body, c.loop.Body.List[:2])
	r.hasLimit = true // the pool's size: loopRewrite's limit already
	r.ioish = p.ioish(c.loop.Body)
	return r, ""
}

// declaresZero reports whether st declares obj with no value: var next
// atomic.Int64, or var next int64.
func (p *pass) declaresZero(st ast.Stmt, obj types.Object) bool {
	ds, ok := st.(*ast.DeclStmt)
	if !ok {
		return false
	}
	gd, ok := ds.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR || len(gd.Specs) != 1 {
		return false
	}
	vs := gd.Specs[0].(*ast.ValueSpec)
	return len(vs.Names) == 1 && len(vs.Values) == 0 && p.TypesInfo.Defs[vs.Names[0]] == obj
}
