package fanout

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// mapping is what the rewrite of a worker pool joined by counted receives
// needs beside the rewrite's callback: the pool sends one value per item on
// a channel, and the caller receives one per item in a loop after the
// producer.
type mapping struct {
	result string         // the results' type: the callback's
	value  string         // what a worker sends per item: the callback returns it
	loop   ast.Stmt       // the caller's loop of counted receives
	body   *ast.BlockStmt // its body
	recv   *ast.UnaryExpr // the receive in it
	name   string         // the variable that takes the receive's place
}

// countedRewrite returns the rewrite of a fixed pool of workers that drain
// a channel a loop over a slice fills, each sending one value per item on
// a second channel, which the caller then receives from once per item:
//
//	for r := range par.Map(par.Slice(xs), func(j T) R { return work(j) }).Values() {
//		total += r
//	}
//
// The values come in the items' order, one schedule of the pool's; a loop
// that may stop before the last receive (a break, a return) gets no fix.
func (p *pass) countedRewrite(f *fan) (*rewrite, string) {
	if f.lit == nil || f.ch == nil {
		return nil, "the workers are not one function literal draining a channel"
	}
	n := p.workerCount(f.loop)
	if n == nil {
		return nil, "the workers are not started by a counted loop"
	}
	if why := p.spawnsOnly(f); why != "" {
		return nil, why
	}
	rng, send := p.sendPerItem(f)
	if rng == nil {
		return nil, "the worker does more than send one value per item it receives"
	}
	l, at := f.list, f.at
	if at+2 >= f.wait {
		return nil, "the producer does not run between the workers and the receives"
	}
	producer, ok := l[at+1].(*ast.RangeStmt)
	if !ok || !p.isSliceProducer(producer, f.ch) || !p.closes(l[at+2], f.ch) {
		return nil, "the producer is not one range loop over a slice that sends each item, then closes the channel"
	}
	for _, st := range l[at+3 : f.wait] {
		if p.mentions(st, f.ch) || p.mentions(st, f.sem) || p.mentions(st, p.objOf(producer.X)) {
			return nil, p.line(st, "the caller uses the channels or the items between the producer and the receives")
		}
	}
	consumer, consumerBody, recv := p.countedLoop(l[f.wait], f.sem, producer.X)
	if consumer == nil {
		return nil, p.line(l[f.wait], "the receives are not one per item in a loop over the items that runs to its end")
	}
	elem := p.TypesInfo.TypeOf(producer.X).Underlying().(*types.Slice).Elem()
	if !types.Identical(elem, p.TypesInfo.TypeOf(rng.Key)) {
		return nil, "the worker's variable has another type than the items"
	}
	t, ok := p.typeString(elem)
	rc, isChan := f.sem.Type().Underlying().(*types.Chan)
	if !isChan {
		return nil, "the results are not received from a channel"
	}
	res, ok2 := p.typeString(rc.Elem())
	if !ok || !ok2 {
		return nil, "the item or result type names a package the file does not import"
	}
	var remove []ast.Stmt
	declared := map[types.Object]bool{}
	for _, st := range l[:at] {
		if p.declares(st, f.ch) || p.declares(st, f.sem) {
			lhs, _ := assignment(st)
			declared[p.objOf(lhs[0])] = true
			remove = append(remove, st)
		}
	}
	if !declared[f.ch] || !declared[f.sem] {
		return nil, "the channels are not declared just for this pool"
	}
	remove = append(remove, f.loop, producer, l[at+2])
	for _, o := range []types.Object{f.ch, f.sem} {
		if p.usedOutside(o, remove, consumer.Pos(), consumer.End()) {
			return nil, "a channel is used outside the pool"
		}
	}
	name := p.freeName("r", consumer.Pos(), consumerBody)
	if name == "" {
		return nil, "no name is free for the received value"
	}
	return &rewrite{
		from:     consumer.Pos(),
		to:       consumer.End(),
		source:   "par.Slice(" + p.src(producer.X) + ")",
		params:   p.src(rng.Key) + " " + t,
		limit:    p.workerLimit(n),
		hasLimit: true,
		ioish:    p.ioish(rng.Body),
		remove:   remove,
		body:     p.returning(rng.Body, send),
		mapped:   &mapping{result: res, value: p.src(send.Value), loop: consumer, body: consumerBody, recv: recv, name: name},
	}, ""
}

// returning returns body, whose last statement is send, as a callback's
// body that returns the sent value instead; "" where send is all of it.
func (p *pass) returning(body *ast.BlockStmt, send *ast.SendStmt) string {
	if len(body.List) == 1 {
		return ""
	}
	text := p.bodyWithout(body, []ast.Stmt{send})
	return strings.TrimRight(text[:len(text)-1], " \t\n") + "\nreturn " + p.src(send.Value) + "\n}"
}

// sendPerItem returns the worker's loop over f's channel and its last
// statement, a send on f.sem, where the loop body does not branch out and
// uses no other channel of the pool; or nil.
func (p *pass) sendPerItem(f *fan) (*ast.RangeStmt, *ast.SendStmt) {
	if len(f.lit.Body.List) != 1 {
		return nil, nil
	}
	rng, ok := f.lit.Body.List[0].(*ast.RangeStmt)
	if !ok || rng.Value != nil || rng.Tok != token.DEFINE || rng.Key == nil || p.objOf(rng.X) != f.ch || len(rng.Body.List) == 0 || hasBranch(rng.Body) {
		return nil, nil
	}
	last := len(rng.Body.List) - 1
	send, ok := rng.Body.List[last].(*ast.SendStmt)
	if !ok || p.objOf(send.Chan) != f.sem || p.mentionsBut(rng.Body, f.sem, send.Chan) || p.mentions(rng.Body, f.ch) {
		return nil, nil
	}
	return rng, send
}

// isSliceProducer reports whether pr is for _, x := range xs { ch <- x },
// xs a slice.
func (p *pass) isSliceProducer(pr *ast.RangeStmt, ch types.Object) bool {
	skips, ok := p.sliceProducer(pr, ch)
	return ok && len(skips) == 0
}

// sliceProducer reports whether pr is a range over a slice xs that sends
// each item x to ch, or skips it first: for _, x := range xs { if c {
// continue }; ...; ch <- x }. It returns the conditions c of the items it
// skips.
func (p *pass) sliceProducer(pr *ast.RangeStmt, ch types.Object) (skips []ast.Expr, ok bool) {
	l := pr.Body.List
	if pr.Value == nil || len(l) == 0 || !pure(pr.X) {
		return nil, false
	}
	for _, st := range l[:len(l)-1] {
		c := skipCond(st)
		if c == nil {
			return nil, false
		}
		skips = append(skips, c)
	}
	send, ok := l[len(l)-1].(*ast.SendStmt)
	if !ok || p.objOf(send.Chan) != ch || p.objOf(send.Value) != p.objOf(pr.Value) {
		return nil, false
	}
	_, ok = p.TypesInfo.TypeOf(pr.X).Underlying().(*types.Slice)
	return skips, ok
}

// skipCond returns c where st is if c { continue }, with no init, else or
// label; else nil.
func skipCond(st ast.Stmt) ast.Expr {
	s, ok := st.(*ast.IfStmt)
	if !ok || s.Init != nil || s.Else != nil || len(s.Body.List) != 1 {
		return nil
	}
	br, ok := s.Body.List[0].(*ast.BranchStmt)
	if !ok || br.Tok != token.CONTINUE || br.Label != nil {
		return nil
	}
	return s.Cond
}

// closes reports whether st is close(ch).
func (p *pass) closes(st ast.Stmt, ch types.Object) bool {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := ast.Unparen(es.X).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	return ok && id.Name == "close" && p.objOf(call.Args[0]) == ch
}

// countedLoop returns st if it is a loop of one iteration per item of xs
// (for range xs, for range len(xs), or for i := 0; i < len(xs); i++ with i
// unused) whose body receives from results once, outside any function
// literal, and cannot leave early, with its body and the receive; else
// nil.
func (p *pass) countedLoop(st ast.Stmt, results types.Object, xs ast.Expr) (ast.Stmt, *ast.BlockStmt, *ast.UnaryExpr) {
	var over ast.Expr
	switch loop := st.(type) {
	case *ast.RangeStmt:
		if loop.Key != nil || loop.Value != nil {
			return nil, nil, nil
		}
		over = ast.Unparen(loop.X)
	case *ast.ForStmt:
		over = p.count(loop)
		if over == nil || p.mentions(loop.Body, p.counter(loop)) {
			return nil, nil, nil
		}
	default:
		return nil, nil, nil
	}
	body := loopBody(st)
	if hasBranch(body) {
		return nil, nil, nil
	}
	if call, ok := ast.Unparen(over).(*ast.CallExpr); ok && len(call.Args) == 1 {
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "len" {
			over = ast.Unparen(call.Args[0])
		}
	}
	if p.objOf(over) == nil || p.objOf(over) != p.objOf(xs) {
		return nil, nil, nil
	}
	recv := p.oneReceive(body, results)
	if recv == nil {
		return nil, nil, nil
	}
	return st, body, recv
}

// receiveLoop returns st, the caller's loop of receives after a goroutine
// per item, and its receive, where it runs once per item to its end and
// receives from results once per round: a range over the items' slice
// (xs), or a count of them (for range n, for i := 0; i < n; i++, where
// count is n's text). Else nil.
func (p *pass) receiveLoop(st ast.Stmt, results types.Object, xs ast.Expr, count string) (ast.Stmt, *ast.BlockStmt, *ast.UnaryExpr) {
	body := loopBody(st)
	if body == nil || hasBranch(body) {
		return nil, nil, nil
	}
	if xs != nil {
		return p.countedLoop(st, results, xs)
	}
	n := p.count(st)
	if n == nil || p.src(n) != count {
		return nil, nil, nil
	}
	if l, ok := st.(*ast.RangeStmt); ok && (l.Key != nil || l.Value != nil) {
		return nil, nil, nil
	}
	if l, ok := st.(*ast.ForStmt); ok && p.mentions(l.Body, p.TypesInfo.Defs[identOf(l.Init.(*ast.AssignStmt).Lhs[0])]) {
		return nil, nil, nil // the round's number is used
	}
	recv := p.oneReceive(body, results)
	if recv == nil {
		return nil, nil, nil
	}
	return st, body, recv
}

// oneReceive returns the one receive from results in body (outside
// function literals), where body uses results nowhere else; else nil.
func (p *pass) oneReceive(body *ast.BlockStmt, results types.Object) *ast.UnaryExpr {
	var recvs []*ast.UnaryExpr
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.ARROW && p.objOf(u.X) == results {
			recvs = append(recvs, u)
		}
		return true
	})
	if len(recvs) != 1 || p.mentionsBut(body, results, recvs[0]) {
		return nil
	}
	return recvs[0]
}

// text returns the loop that takes the place of the receives: a range over
// the values that the pool's callback, fn, returns for the items of expr.
func (m *mapping) text(p *pass, parName, expr, params, fn string) string {
	body := p.src(m.body)
	start := int(m.recv.Pos() - m.body.Pos())
	end := int(m.recv.End() - m.body.Pos())
	body = body[:start] + m.name + body[end:]
	if fn == "" {
		fn = "{ return " + m.value + " }"
	}
	return "for " + m.name + " := range " + parName + ".Map(" + expr + ", func(" + params + ") " + m.result +
		" " + fn + ").Values() " + body
}

// receivesJoin sets r to take the place of the caller's loop of counted
// receives after a goroutine per item that sends its result (sent) on
// f.sem, over the items of over (nil for a count): a range over
// par.Map(...).Values() with the goroutine's body as the callback. The
// values come in the items' order, one order the goroutines could have
// finished in; a loop that may stop before the last receive gets no fix.
func (p *pass) receivesJoin(f *fan, r *rewrite, sent *ast.SendStmt, over ast.Expr) string {
	count := ""
	if over == nil {
		n := p.count(f.loop)
		if n == nil {
			return "the loop does not count from 0"
		}
		count = p.src(n)
	}
	consumer, body, recv := p.receiveLoop(f.list[f.wait], f.sem, over, count)
	if consumer == nil {
		return p.line(f.list[f.wait], "the receives are not one per item in a loop over the items that runs to its end")
	}
	rc, isChan := f.sem.Type().Underlying().(*types.Chan)
	if !isChan {
		return "the results are not received from a channel"
	}
	res, ok := p.typeString(rc.Elem())
	if !ok {
		return "the result type names a package the file does not import"
	}
	name := p.freeName("r", consumer.Pos(), body)
	if name == "" {
		return "no name is free for the received value"
	}
	r.from, r.to = consumer.Pos(), consumer.End()
	r.remove = append(r.remove, f.list[f.at])
	r.mapped = &mapping{result: res, value: p.src(sent.Value), loop: consumer, body: body, recv: recv, name: name}
	return ""
}
