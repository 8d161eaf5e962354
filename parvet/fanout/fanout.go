// Package fanout defines an analyzer that finds hand-rolled goroutine
// fan-outs that a gopar operation replaces, and rewrites those whose
// meaning the rewrite keeps.
//
// # Analyzer fanout
//
// fanout: find hand-rolled goroutine fan-outs that a gopar operation replaces
//
// A fan-out is a loop that starts work on other goroutines and a wait for
// all of it after the loop. The analyzer finds these shapes:
//
//   - a goroutine per item with a sync.WaitGroup (wg.Add(1) and
//     go func() { defer wg.Done(); ... }(), or wg.Go);
//   - an errgroup.Group's Go in a loop, with or without SetLimit and
//     WithContext;
//   - a goroutine per item bounded by a semaphore channel (sem <- struct{}{}
//     before the go statement, <-sem in the goroutine), joined by a group or
//     by refilling the semaphore, or bounded by a semaphore.Weighted,
//     acquired before the go statement or in the goroutine;
//   - a goroutine per item on a group of the program's own or of another
//     package: a Go method given a function, on a value with a Wait method
//     (minio's g.Go(f, index)), or a limiter whose method the goroutine
//     defers and whose Wait follows the loop (wk.Take(); go func() { defer
//     wk.Give() }(); wk.Wait()), reported without a fix but for minio's
//     errgroup (github.com/minio/pkg/.../sync/errgroup), whose contract is
//     known: its errors by index become a slice that the callback fills;
//   - a goroutine per item joined by counting receives from a channel the
//     goroutines send on (for range xs { <-errc });
//   - a fixed pool of worker goroutines (or errgroup workers) that drain a
//     channel fed by a producer.
//
// It follows what real code does around these: the function the goroutine
// runs may be a literal, a local variable holding one (go worker(),
// wg.Go(worker)) or a function of the package (go drain(ch, &wg)); the loop
// may be labelled and the spawn may sit under an if of its body; workers
// may drain their channel in a select that also watches a context; the Wait
// may be in a goroutine of its own (go func() { wg.Wait(); close(results)
// }()), in a closure the caller calls (wait := func() { wg.Wait() }), a
// task of another group (wg.Go(savers.Wait)) or deferred (defer wg.Wait());
// and the caller may do work between the loop and the Wait (a producer, a
// consumer).
//
// Each report names the gopar form that replaces the loop: par.Slice(xs),
// par.Range(0, n) or par.FromChan(ch), ForEach or TryForEach (first error;
// ForEachErr for every error, and for an errgroup without a context, which
// runs every item), on the pool for work that computes, or Blocking(n) for
// work that blocks on I/O, with the fan-out's own limit where it has one.
//
// Where the rewrite keeps the program's meaning (the loop over a slice, a
// map, a channel, an iterator or a count from one bound to another, or
// workers over a channel, the goroutine's body moved unchanged into the
// callback, items that the loop or the producer skips with continue
// skipped by the callback or a Filter, the group, the semaphore and the
// wait used nowhere else, the limit and the context carried over), the
// report has two suggested fixes. What the loop does before the start
// moves into the callback where running it there, later and on another
// goroutine, gives the same result: declarations and skips that only read
// (fields, items, map entries, type assertions, and calls of functions of
// the package that only read, what the loop and its goroutines leave
// alone, or of a String or Error method), and writes of the item's own
// slots (errs[i] = err, a slot that only item i names). A read that
// panics (a nil pointer, an index out of range, a failed assertion)
// panics in the callback, and gopar passes the panic on to the caller.
// Writes of the loop into a local variable of the function that nothing
// else in the loop nor any closure reads (total += n, order[x] = i) stay
// in a loop of their own before the call: each goroutine ran beside them
// without seeing them.
//
// Where the caller works beside the goroutines, the par call runs in a
// goroutine of its own and the caller's code stays as it is: workers fed
// by the caller between the loop and the Wait (the Wait becomes a receive
// from a channel that the goroutine closes when the call returns), a
// goroutine per item whose results the caller receives by count while it
// works or stops early (the goroutine's send stays in the callback), and a
// Wait in a goroutine of its own (the call takes its place there). The
// callbacks then read the items while the caller goes on, so the caller
// must not change them after the loop, and the loop must move nothing into
// the callback; only the Blocking form is offered where the callbacks send
// to the caller.
// The two fixes: one in Blocking mode, which keeps the goroutines and the
// limit (one goroutine per item where the loop had no limit), and one on the
// pool, for CPU-bound work. The analyzer cannot know whether the work
// blocks; the first fix is the one its guess favours: Blocking where the
// fan-out has a limit or its body does I/O (uses a context, net, os, io,
// database/sql, time.Sleep), itself or in a function of the same package
// that it calls, the pool otherwise. Where it has no fix, the report ends
// with "no fix:" and what stops the rewrite.
//
// A fix never moves the loop past another blocking call: not when the Wait
// shares its statement with a call evaluated before it
// (err1, err2 := g1.Wait(), g2.Wait()), nor when it runs on some paths
// only. Goroutines that wait (a receive, a select, a Wait, a server's
// Serve, an endless loop), themselves or in a function of the package that
// they call, may wait on each other or run until stopped: they may need to
// run all at once, which a pool or a limit would prevent, so they get a
// report without a fix. A sleep on a timer, which a context or a channel
// that no task signals may cut short, is not such a wait, nor is a select
// with a default outside a polling loop (a loop with no condition, or one
// that only the select's cases change), and neither is
// what a goroutine that the task starts on its own waits for, nor a join of the task's own (a WaitGroup, an
// errgroup or a channel that the task declares and keeps to itself,
// closing it with close or with a function whose name ends in Close and
// whose one parameter is a channel, as minio's SafeClose). An
// errgroup with no context, or one whose context
// is discarded, whose callbacks can fail, runs every item after a failure,
// where TryForEach starts none: its fix runs every item with ForEach and
// keeps the first error, as the group's Wait returns it.
package fanout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/tools/go/analysis"

	"github.com/gopar-dev/gopar/parvet/internal/goparapi"
)

// Analyzer finds hand-rolled fan-outs that gopar replaces.
var Analyzer = &analysis.Analyzer{
	Name: "fanout",
	Doc:  "find hand-rolled goroutine fan-outs that a gopar operation replaces\n\nfanout reports loops that start a goroutine per item with a sync.WaitGroup (Add/Done or wg.Go), errgroup loops with or without SetLimit and WithContext, semaphore-bounded goroutines, goroutines joined by counted receives, and fixed worker pools that drain a channel fed by a producer (errgroup workers that share their group with the producer become one task of it), whether the goroutine runs a literal, a named closure or a function, with the gopar form that replaces each: par.Slice(xs), par.Range or par.FromChan(ch), ForEach or TryForEach on the pool for CPU-bound work, with Blocking(n) for work that blocks on I/O. Where the rewrite keeps the program's meaning it offers both forms as suggested fixes, the one it guesses first; otherwise the report says what stops it. It offers no fix for goroutines that wait (on each other, on a server's Serve), which may need to run all at once; a sleep on a timer that a context may cut short is not such a wait.",
	URL:  "https://pkg.go.dev/github.com/gopar-dev/gopar/parvet/fanout",
	Run:  run,
}

// The messages of the two suggested fixes; every report that has fixes has
// both.
const (
	FixBlocking = "Replace with a par operation in Blocking mode (work that blocks on I/O)"
	FixPool     = "Replace with a par operation on the pool (CPU-bound work)"
)

type pass struct {
	*analysis.Pass
	file  *ast.File
	funcs map[*types.Func]*ast.FuncDecl // the package's functions and methods with a body
	// effects holds what the package's functions do (effectsOf), for
	// all the package's files.
	effects map[*types.Func]*effects
	// called holds calledEffects's answers, by node, for this file.
	called map[ast.Node]*effects
}

func run(p *analysis.Pass) (any, error) {
	funcs := map[*types.Func]*ast.FuncDecl{}
	for _, f := range p.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					funcs[fn] = fd
				}
			}
		}
	}
	known := map[*types.Func]*effects{}
	for _, f := range p.Files {
		ps := &pass{Pass: p, file: f, funcs: funcs, effects: known, called: map[ast.Node]*effects{}}
		ast.Inspect(f, func(n ast.Node) bool {
			var list []ast.Stmt
			switch n := n.(type) {
			case *ast.BlockStmt:
				list = n.List
			case *ast.CaseClause:
				list = n.Body
			case *ast.CommClause:
				list = n.Body
			}
			for i, st := range list {
				if l, ok := st.(*ast.LabeledStmt); ok {
					st = l.Stmt
				}
				switch st.(type) {
				case *ast.ForStmt, *ast.RangeStmt:
					ps.loop(list, i)
				}
			}
			return true
		})
	}
	return nil, nil
}

// fan is one fan-out found.
type fan struct {
	list     []ast.Stmt
	at       int                           // the index in list of the loop that spawns (or of its label)
	loop     ast.Stmt                      // that loop
	label    *ast.LabeledStmt              // the loop's label, if any
	lit      *ast.FuncLit                  // the function literal that runs per item (or per worker), where the go statement has one
	body     *ast.BlockStmt                // the body of the function that runs per item: lit's, or a named function's
	named    string                        // the name of that function where it is not a literal in place (go worker(), wg.Go(drain))
	param    map[types.Object]types.Object // a named function's parameters: the caller's variables passed to them
	args     []ast.Expr                    // the go statement's arguments
	closure  *ast.FuncLit                  // the literal a local variable holds, where named is that variable
	closVar  types.Object                  // that variable
	closDecl ast.Stmt                      // its declaration, where the rewrite moves the literal into the callback (inlineClosure)
	fn       *ast.FuncDecl                 // the function of the package the go statement runs, where named is its name
	weighted types.Object                  // a semaphore.Weighted that an errgroup's tasks each take one unit of, its size the limit
	shape    string                        // "waitgroup", "wg.Go", "errgroup", "semaphore", "weighted", "workers", "counted", "refill"
	group    types.Object                  // the WaitGroup or errgroup.Group
	sem      types.Object                  // the semaphore channel, or the channel of the counted receives
	limit    ast.Expr                      // SetLimit's, the semaphore's capacity, the worker count
	gctx     types.Object                  // the context of errgroup.WithContext
	pctx     ast.Expr                      // its parent
	wait     int                           // the index in list of the statement that waits
	call     *ast.CallExpr                 // the Wait call
	ch       types.Object                  // the channel the workers drain
	under    ast.Stmt                      // the if in the loop body that the spawn sits under
	waitGo   bool                          // the Wait runs in a goroutine started after the loop, or as another group's task
	waitIn   string                        // the closure the Wait runs in, where the caller calls one (wait := func() { wg.Wait() })
	deferred bool                          // the Wait is deferred
	semGo    bool                          // a semaphore channel bounds a wg.Go or errgroup loop
	sel      bool                          // the workers drain ch in a select that watches other channels too
	between  ast.Stmt                      // a statement between the loop and the wait that shares variables with the goroutines
}

// loop looks at the loop list[i].
func (p *pass) loop(list []ast.Stmt, i int) {
	f := &fan{list: list, at: i, loop: list[i], wait: -1}
	if l, ok := list[i].(*ast.LabeledStmt); ok {
		f.label, f.loop = l, l.Stmt
	}
	body := loopBody(f.loop)
	stmts := body.List
	for _, st := range body.List {
		// A spawn under an if of the loop body.
		if is, ok := st.(*ast.IfStmt); ok && len(body.List) <= 2 {
			for _, inner := range is.Body.List {
				if spawns(inner) {
					f.under = is
					stmts = append(slices.Clip(stmts), is.Body.List...)
				}
			}
		}
	}
	for _, st := range stmts {
		switch st := st.(type) {
		case *ast.GoStmt:
			if f.body == nil && p.worker(f, st.Call.Fun, st.Call.Args) {
				f.shape = "waitgroup"
			}
		case *ast.ExprStmt:
			call, ok := ast.Unparen(st.X).(*ast.CallExpr)
			if !ok {
				continue
			}
			fn := goparapi.Callee(p.TypesInfo, call)
			if fn == nil || f.body != nil {
				continue
			}
			if len(call.Args) != 1 || !isMethod(fn, "sync", "WaitGroup", "Go") && !isMethod(fn, "golang.org/x/sync/errgroup", "Group", "Go") {
				// A group of the program's own or of another package:
				// a Go method given a function, on a value with a Wait.
				if g := p.recvObj(call); fn.Name() == "Go" && g != nil && hasWait(g.Type()) {
					for _, a := range call.Args {
						if _, isLit := ast.Unparen(a).(*ast.FuncLit); isLit && p.worker(f, a, nil) {
							f.shape, f.group = "group", g
							break
						}
					}
				}
				continue
			}
			switch {
			case isMethod(fn, "sync", "WaitGroup", "Go"):
				if p.worker(f, call.Args[0], nil) {
					f.shape = "wg.Go"
					f.group = p.recvObj(call)
				}
			case isMethod(fn, "golang.org/x/sync/errgroup", "Group", "Go"):
				if p.worker(f, call.Args[0], nil) {
					f.shape = "errgroup"
					f.group = p.recvObj(call)
				}
			}
		}
	}
	if f.body == nil {
		return
	}
	if f.shape == "waitgroup" {
		f.group = p.doneGroup(f)
		if f.group == nil {
			// A limiter of the program's own (wk.Take() before the go
			// statement, defer wk.Give() in it, wk.Wait() after).
			if g := p.deferredOn(f); g != nil {
				f.shape, f.group = "group", g
			}
		}
		if f.group != nil && f.shape == "waitgroup" && !p.doneAtEnd(f.body, p.inner(f, f.group)) {
			return // a Done mid-way: the wait is for a first step, not the work
		}
		// Bounded by a semaphore?
		for _, st := range stmts {
			if send, ok := st.(*ast.SendStmt); ok {
				if obj := p.objOf(send.Chan); obj != nil && p.receives(f, obj) {
					f.shape, f.sem = "semaphore", obj
					f.limit = p.chanCap(list[:i], obj)
				}
			}
		}
		for _, n := range append([]ast.Node{f.body}, asNodes(stmts)...) {
			ast.Inspect(n, func(n ast.Node) bool {
				if lit, ok := n.(*ast.FuncLit); ok && lit != f.lit {
					return false
				}
				if call, ok := n.(*ast.CallExpr); ok {
					if fn := goparapi.Callee(p.TypesInfo, call); fn != nil && isMethod(fn, "golang.org/x/sync/semaphore", "Weighted", "Acquire") {
						f.shape, f.sem = "weighted", p.outer(f, p.recvObj(call))
					}
				}
				return true
			})
		}
	}
	if f.shape == "wg.Go" || f.shape == "errgroup" {
		// Bounded by a semaphore channel: sem <- struct{}{} before g.Go.
		for _, st := range stmts {
			if send, ok := st.(*ast.SendStmt); ok {
				if obj := p.objOf(send.Chan); obj != nil && p.receives(f, obj) {
					f.sem, f.semGo = obj, true
				}
			}
		}
	}
	if f.group == nil && f.shape != "weighted" && f.shape != "semaphore" {
		// No group: joined by counted receives from a channel the
		// goroutines send on (for range xs { <-errc }).
		if !p.countedJoin(f) {
			return
		}
	}
	if f.shape == "waitgroup" || f.shape == "wg.Go" || f.shape == "errgroup" {
		for _, st := range f.body.List {
			if r, ok := st.(*ast.RangeStmt); ok {
				ch := p.outer(f, p.objOf(r.X))
				if _, isChan := p.TypesInfo.TypeOf(r.X).Underlying().(*types.Chan); isChan && ch != nil && ch.Pos() < f.loop.Pos() && p.sharedBefore(r.X, f) {
					// One channel, declared before the loop, that every
					// worker drains (not a channel per item, as in a fan-in).
					f.shape, f.ch = "workers", ch
				}
			}
			if ch := p.selectDrains(f, st); ch != nil {
				f.shape, f.ch, f.sel = "workers", ch, true
			}
		}
	}
	if f.group == nil && f.shape != "counted" {
		// A semaphore without a group: joined by refilling it.
		if !p.refillJoin(f) {
			return
		}
	}
	if f.shape != "counted" && f.shape != "refill" {
		p.findWait(f)
	}
	if f.wait < 0 {
		return // not joined here: a server's accept loop, a background task
	}
	// Channels that the caller sends on between the loop and the wait feed
	// the goroutines (a producer): that is the fan-out's own input.
	feeds := map[types.Object]bool{}
	for _, o := range []types.Object{f.group, f.sem, f.ch} {
		if o != nil {
			feeds[o] = true
		}
	}
	for _, st := range list[i+1 : f.wait] {
		ast.Inspect(st, func(n ast.Node) bool {
			if send, ok := n.(*ast.SendStmt); ok {
				if o := p.objOf(send.Chan); o != nil {
					feeds[o] = true
				}
			}
			return true
		})
	}
	for _, st := range list[i+1 : f.wait] {
		if p.sharesWith(st, f.body, feeds) {
			// The caller does something between the loop and the wait
			// with what the goroutines use (a consumer, a flag): the
			// rewrite would run it after the work instead of beside it.
			f.between = st
			break
		}
	}
	if f.between != nil && p.waitsOnOthers(f) != "" && p.releases(f) {
		return // the goroutines wait until the caller lets them go (close(stop)): not a fork-join
	}
	if f.shape == "errgroup" || f.shape == "workers" && f.group != nil && p.isGroup(f.group) {
		p.errgroupSetup(f)
	}
	p.report(f)
}

// releases reports whether the caller, between f's loop and its wait,
// closes or sends on a channel other than f's work channel that f's
// goroutines receive from: a stop signal they wait for.
func (p *pass) releases(f *fan) bool {
	found := false
	for _, st := range f.list[f.at+1 : min(f.wait, len(f.list))] {
		ast.Inspect(st, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			var ch types.Object
			switch n := n.(type) {
			case *ast.SendStmt:
				ch = p.objOf(n.Chan)
			case *ast.CallExpr:
				if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && id.Name == "close" && len(n.Args) == 1 {
					ch = p.objOf(n.Args[0])
				}
			}
			if ch != nil && ch != f.ch && p.receives(f, ch) {
				found = true
			}
			return !found
		})
	}
	return found
}

// selectDrains returns the channel, declared before f's loop, that st
// drains in an endless loop around a select (for { select { case j, ok :=
// <-jobs: ...; case <-ctx.Done(): return } }), or nil.
func (p *pass) selectDrains(f *fan, st ast.Stmt) types.Object {
	fs, ok := st.(*ast.ForStmt)
	if !ok || fs.Cond != nil {
		return nil
	}
	for _, st := range fs.Body.List {
		ss, ok := st.(*ast.SelectStmt)
		if !ok {
			continue
		}
		for _, c := range ss.Body.List {
			as, ok := c.(*ast.CommClause).Comm.(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 {
				continue
			}
			if u, ok := ast.Unparen(as.Rhs[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				if ch := p.outer(f, p.objOf(u.X)); ch != nil && ch.Pos() < f.loop.Pos() {
					return ch
				}
			}
		}
		return nil // the first select is the one that takes the work
	}
	return nil
}

// hasWait reports whether t, or what it points to, has a Wait method
// without parameters.
func hasWait(t types.Type) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "Wait")
	fn, ok := obj.(*types.Func)
	return ok && fn.Signature().Params().Len() == 0
}

// deferredOn returns the caller's variable, declared before f's loop and
// not a sync.WaitGroup, whose method f's function defers first (defer
// wk.Give()) where that variable has a Wait method, or nil.
func (p *pass) deferredOn(f *fan) types.Object {
	for _, st := range f.body.List {
		d, ok := st.(*ast.DeferStmt)
		if !ok {
			continue
		}
		o := p.outer(f, p.recvObj(d.Call))
		if o == nil || o.Pos() > f.loop.Pos() || !hasWait(o.Type()) {
			return nil
		}
		if fn := goparapi.Callee(p.TypesInfo, d.Call); fn == nil || isMethod(fn, "sync", "WaitGroup", "Done") {
			return nil
		}
		return o
	}
	return nil
}

// asNodes returns stmts as nodes.
func asNodes(stmts []ast.Stmt) []ast.Node {
	var ns []ast.Node
	for _, st := range stmts {
		ns = append(ns, st)
	}
	return ns
}

// spawns reports whether st starts a goroutine: a go statement, or a Go
// method call (wg.Go, g.Go).
func spawns(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.GoStmt:
		return true
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(st.X).(*ast.CallExpr); ok {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" {
				return true
			}
		}
	}
	return false
}

// worker sets f's function from fun, the function a go statement or a Go
// method starts: a literal, a local variable holding one (worker := func()
// {...}), or a function of this package. It reports whether it found one.
func (p *pass) worker(f *fan, fun ast.Expr, args []ast.Expr) bool {
	fun = ast.Unparen(fun)
	if lit, ok := fun.(*ast.FuncLit); ok {
		f.lit, f.body, f.args = lit, lit.Body, args
		return true
	}
	id, ok := fun.(*ast.Ident)
	if !ok {
		return false
	}
	switch o := p.TypesInfo.Uses[id].(type) {
	case *types.Var:
		// worker := func() { ... }, assigned once, before the loop.
		// Or with parameters: go stop(server).
		lit := p.assignedLit(o)
		if lit == nil {
			return false
		}
		f.body, f.named, f.args = lit.Body, id.Name, args
		f.closure, f.closVar = lit, o
		p.params(f, lit.Type, args)
		return true
	case *types.Func:
		fd := p.funcs[o]
		if fd == nil || fd.Recv != nil {
			return false
		}
		f.body, f.named, f.args, f.fn = fd.Body, id.Name, args, fd
		p.params(f, fd.Type, args)
		return true
	}
	return false
}

// params sets f's parameters of the named function of type ft: they stand
// for the caller's variables passed to them.
func (p *pass) params(f *fan, ft *ast.FuncType, args []ast.Expr) {
	f.param = map[types.Object]types.Object{}
	k := 0
	for _, fld := range ft.Params.List {
		for _, name := range fld.Names {
			if k < len(args) {
				if o := p.objOf(args[k]); o != nil {
					f.param[p.TypesInfo.Defs[name]] = o
				}
			}
			k++
		}
	}
}

// assignedLit returns the function literal that v is declared with, where v
// is a local variable never assigned again, or nil.
func (p *pass) assignedLit(v *types.Var) *ast.FuncLit {
	var lit *ast.FuncLit
	assigns := 0
	ast.Inspect(p.file, func(n ast.Node) bool {
		lhs, rhs := []ast.Expr(nil), []ast.Expr(nil)
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs, rhs = n.Lhs, n.Rhs
		case *ast.ValueSpec:
			for _, name := range n.Names {
				lhs = append(lhs, name)
			}
			rhs = n.Values
		}
		for k, e := range lhs {
			if id, ok := e.(*ast.Ident); ok && (p.TypesInfo.Defs[id] == v || p.TypesInfo.Uses[id] == v) {
				assigns++
				if k < len(rhs) && len(lhs) == len(rhs) {
					lit, _ = ast.Unparen(rhs[k]).(*ast.FuncLit)
				}
			}
		}
		return true
	})
	if assigns != 1 {
		return nil
	}
	return lit
}

// outer returns the caller's variable that o stands for: o itself, or, in
// a named function, the variable passed to its parameter o.
func (p *pass) outer(f *fan, o types.Object) types.Object {
	if a, ok := f.param[o]; ok {
		return a
	}
	return o
}

// inner returns the variable that the function of f uses for the caller's
// variable o: o itself, or the parameter it is passed to.
func (p *pass) inner(f *fan, o types.Object) types.Object {
	for k, v := range f.param {
		if v == o {
			return k
		}
	}
	return o
}

// isGroup reports whether o is an errgroup.Group (or a pointer to one).
func (p *pass) isGroup(o types.Object) bool {
	t := o.Type()
	if ptr, ok := t.Underlying().(*types.Pointer); ok {
		t = ptr.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "golang.org/x/sync/errgroup" && n.Obj().Name() == "Group"
}

// findWait finds f's Wait: after the loop in a statement of its own, in a
// goroutine started to wait (go func() { wg.Wait(); close(results) }()), in
// a closure the caller calls (wait := func() { wg.Wait() }; ...; wait()),
// as a method value another group runs (wg.Go(savers.Wait)), or deferred,
// before the loop or after it (defer wg.Wait(), defer func() { wg.Wait();
// close(results) }()).
func (p *pass) findWait(f *fan) {
	list := f.list
	for j := 0; j < f.at; j++ {
		if d, ok := list[j].(*ast.DeferStmt); ok && p.defersWait(f, d) {
			// It runs when the function returns, after everything that
			// follows the loop.
			f.wait, f.call, f.deferred = len(list), d.Call, true
			return
		}
	}
	for j := f.at + 1; j < len(list) && f.wait < 0; j++ {
		if d, ok := list[j].(*ast.DeferStmt); ok && p.defersWait(f, d) {
			f.wait, f.call, f.deferred = j, d.Call, true
			return
		}
		ast.Inspect(list[j], func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok || f.wait >= 0 {
				return f.wait < 0
			}
			switch {
			case p.isCall(call, f.group, "Wait"):
				f.wait, f.call = j, call
			case p.closureWaits(f, call.Fun):
				f.wait, f.call, f.waitIn = j, call, types.ExprString(call.Fun)
			default:
				for _, a := range call.Args {
					if sel, ok := ast.Unparen(a).(*ast.SelectorExpr); ok && sel.Sel.Name == "Wait" && f.group != nil && p.objOf(sel.X) == f.group {
						// The Wait as a method value that another
						// goroutine runs: wg.Go(savers.Wait).
						f.wait, f.call, f.waitGo = j, call, true
					}
				}
			}
			return f.wait < 0
		})
		if f.wait >= 0 {
			return
		}
		// A goroutine, or another group's task, that waits:
		// go func() { wg.Wait(); close(results) }(), or
		// g.Go(func() error { wg.Wait(); close(results); return nil }).
		var lits []ast.Expr
		switch st := list[j].(type) {
		case *ast.GoStmt:
			lits = []ast.Expr{st.Call.Fun}
		case *ast.ExprStmt:
			if call, ok := ast.Unparen(st.X).(*ast.CallExpr); ok {
				if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" {
					lits = call.Args
				}
			}
		}
		for _, e := range lits {
			if lit, ok := ast.Unparen(e).(*ast.FuncLit); ok && p.topWait(f, lit.Body) != nil {
				f.wait, f.call, f.waitGo = j, p.topWait(f, lit.Body), true
				return
			}
		}
	}
}

// topWait returns the call of f's Wait among the statements of body (an
// expression statement, or an assignment of its result), or nil.
func (p *pass) topWait(f *fan, body *ast.BlockStmt) *ast.CallExpr {
	for _, st := range body.List {
		var e ast.Expr
		switch st := st.(type) {
		case *ast.ExprStmt:
			e = st.X
		case *ast.AssignStmt:
			if len(st.Rhs) == 1 {
				e = st.Rhs[0]
			}
		case *ast.ReturnStmt:
			if len(st.Results) == 1 {
				e = st.Results[0]
			}
		case *ast.IfStmt:
			if as, ok := st.Init.(*ast.AssignStmt); ok && len(as.Rhs) == 1 {
				e = as.Rhs[0]
			}
		}
		if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && p.isCall(call, f.group, "Wait") {
			return call
		}
	}
	return nil
}

// defersWait reports whether d defers f's Wait: defer wg.Wait(), or a
// deferred function literal that calls it.
func (p *pass) defersWait(f *fan, d *ast.DeferStmt) bool {
	if p.isCall(d.Call, f.group, "Wait") {
		return true
	}
	lit, ok := ast.Unparen(d.Call.Fun).(*ast.FuncLit)
	return ok && p.topWait(f, lit.Body) != nil
}

// closureWaits reports whether fun names a local closure, assigned once,
// that calls f's Wait (wait := func() { wg.Wait() }).
func (p *pass) closureWaits(f *fan, fun ast.Expr) bool {
	id, ok := ast.Unparen(fun).(*ast.Ident)
	if !ok || f.group == nil {
		return false
	}
	v, ok := p.TypesInfo.Uses[id].(*types.Var)
	if !ok {
		return false
	}
	lit := p.assignedLit(v)
	return lit != nil && p.topWait(f, lit.Body) != nil
}

// countedJoin reports whether f's goroutines, which no group joins, send
// on a channel declared before the loop that a later loop of the caller
// receives from (for range xs { if err := <-errc; err != nil { ... } }),
// and sets f's shape, channel and wait to it.
func (p *pass) countedJoin(f *fan) bool {
	sent := map[types.Object]bool{}
	ast.Inspect(f.body, func(n ast.Node) bool {
		if send, ok := n.(*ast.SendStmt); ok {
			if o := p.outer(f, p.objOf(send.Chan)); o != nil && o.Pos() < f.loop.Pos() {
				sent[o] = true
			}
		}
		return true
	})
	if len(sent) == 0 {
		return false
	}
	for j := f.at + 1; j < len(f.list); j++ {
		lb := loopBody(f.list[j])
		if lb == nil {
			continue
		}
		if fs, ok := unlabel(f.list[j]).(*ast.ForStmt); ok && fs.Cond == nil {
			return false // an endless loop that serves what they send, not a count
		}
		if p.produces(f, lb, sent) {
			continue // the producer that feeds the workers: the join may follow it
		}
		for _, st := range lb.List {
			var got types.Object
			ast.Inspect(st, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false
				}
				if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.ARROW && sent[p.objOf(u.X)] {
					got = p.objOf(u.X)
				}
				return got == nil
			})
			if got != nil {
				f.shape, f.sem, f.wait = "counted", got, j
				for _, st := range f.body.List {
					// Workers that drain one channel, declared before the
					// loop, rather than a goroutine per item.
					if r, ok := st.(*ast.RangeStmt); ok {
						if ch := p.outer(f, p.objOf(r.X)); ch != nil && ch.Pos() < f.loop.Pos() && p.isChan(r.X) && p.sharedBefore(r.X, f) {
							f.ch = ch
						}
					}
				}
				return true
			}
		}
		return false // the first loop after the spawns is not the join
	}
	return false
}

// produces reports whether the loop body lb sends on a channel that f's
// goroutines receive from or drain, and receives from none of the channels
// they send on (sent): a producer that feeds them, which the join follows.
func (p *pass) produces(f *fan, lb *ast.BlockStmt, sent map[types.Object]bool) bool {
	feeds, joins := false, false
	ast.Inspect(lb, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SendStmt:
			if o := p.objOf(n.Chan); o != nil && p.drains(f, o) {
				feeds = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && sent[p.objOf(n.X)] {
				joins = true
			}
		}
		return !joins
	})
	return feeds && !joins
}

// drains reports whether f's goroutines receive from the channel obj, or
// range over it.
func (p *pass) drains(f *fan, obj types.Object) bool {
	found := p.receives(f, obj)
	ast.Inspect(f.body, func(n ast.Node) bool {
		if r, ok := n.(*ast.RangeStmt); ok && p.outer(f, p.objOf(r.X)) == obj {
			found = true
		}
		return !found
	})
	return found
}

// sharedBefore reports whether e, a channel expression in f's goroutine,
// names one channel that every goroutine shares: the variable it is, or
// the one its selectors start from, is declared before f's loop (not
// inst.in, a channel of each item).
func (p *pass) sharedBefore(e ast.Expr, f *fan) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			if _, isPkg := p.TypesInfo.Uses[identOf(x.X)].(*types.PkgName); isPkg {
				return true // a package's variable
			}
			e = x.X
			continue
		case *ast.Ident:
			o := p.outer(f, p.objOf(x))
			return o != nil && o.Pos() < f.loop.Pos()
		}
		return false
	}
}

// isChan reports whether e is of a channel type.
func (p *pass) isChan(e ast.Expr) bool {
	t := p.TypesInfo.TypeOf(e)
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Chan)
	return ok
}

// refillJoin reports whether f's semaphore is refilled to its capacity
// after the loop (for i := 0; i < cap(sem); i++ { sem <- struct{}{} }), the
// join of a semaphore without a group, and sets f's shape and wait to it.
func (p *pass) refillJoin(f *fan) bool {
	if f.sem == nil || f.shape != "semaphore" {
		return false
	}
	for j := f.at + 1; j < len(f.list); j++ {
		lb := loopBody(f.list[j])
		if lb == nil {
			continue
		}
		for _, st := range lb.List {
			if send, ok := st.(*ast.SendStmt); ok && p.objOf(send.Chan) == f.sem {
				f.shape, f.wait = "refill", j
				return true
			}
		}
		return false
	}
	return false
}

// unlabel returns the statement that st labels, or st.
func unlabel(st ast.Stmt) ast.Stmt {
	if l, ok := st.(*ast.LabeledStmt); ok {
		return l.Stmt
	}
	return st
}

func loopBody(st ast.Stmt) *ast.BlockStmt {
	if l, ok := st.(*ast.LabeledStmt); ok {
		st = l.Stmt
	}
	switch st := st.(type) {
	case *ast.ForStmt:
		return st.Body
	case *ast.RangeStmt:
		return st.Body
	}
	return nil
}

func isMethod(fn *types.Func, pkg, recv, name string) bool {
	return fn.Pkg() != nil && fn.Pkg().Path() == pkg && goparapi.RecvName(fn) == recv && fn.Name() == name
}

// objOf returns the variable that e names, or nil.
func (p *pass) objOf(e ast.Expr) types.Object {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return p.TypesInfo.ObjectOf(e)
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return p.objOf(e.X)
		}
	case *ast.SelectorExpr:
		if sel := p.TypesInfo.Selections[e]; sel != nil && sel.Kind() == types.FieldVal {
			return sel.Obj()
		}
	}
	return nil
}

func (p *pass) recvObj(call *ast.CallExpr) types.Object {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		return p.objOf(sel.X)
	}
	return nil
}

// doneGroup returns the caller's WaitGroup whose Done f's function calls.
func (p *pass) doneGroup(f *fan) types.Object {
	var group types.Object
	ast.Inspect(f.body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && group == nil {
			if fn := goparapi.Callee(p.TypesInfo, call); fn != nil && isMethod(fn, "sync", "WaitGroup", "Done") {
				group = p.outer(f, p.recvObj(call))
			}
		}
		return group == nil
	})
	return group
}

// sharesWith reports whether st uses a variable that lit also uses, other
// than those of skip.
func (p *pass) sharesWith(st ast.Stmt, body *ast.BlockStmt, skip map[types.Object]bool) bool {
	used := map[types.Object]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := p.TypesInfo.Uses[id].(*types.Var); ok && !skip[v] {
				used[v] = true
			}
		}
		return true
	})
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && used[p.TypesInfo.ObjectOf(id)] {
			found = true
		}
		return !found
	})
	return found
}

// doneAtEnd reports whether body calls wg.Done when its work is over: in a
// defer, or as its last statement.
func (p *pass) doneAtEnd(body *ast.BlockStmt, wg types.Object) bool {
	list := body.List
	for _, st := range list {
		if d, ok := st.(*ast.DeferStmt); ok && p.isCall(d.Call, wg, "Done") {
			return true
		}
	}
	if len(list) > 0 {
		if es, ok := list[len(list)-1].(*ast.ExprStmt); ok {
			if call, ok := ast.Unparen(es.X).(*ast.CallExpr); ok && p.isCall(call, wg, "Done") {
				return true
			}
		}
	}
	return false
}

// receives reports whether f's function receives from the caller's
// channel obj.
func (p *pass) receives(f *fan, obj types.Object) bool {
	found := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.ARROW && p.outer(f, p.objOf(u.X)) == obj {
			found = true
		}
		return !found
	})
	return found
}

// chanCap returns the capacity given to make for the channel obj in the
// statements before, or nil.
func (p *pass) chanCap(before []ast.Stmt, obj types.Object) ast.Expr {
	var capacity ast.Expr
	for _, st := range before {
		lhs, rhs := assignment(st)
		for k := range lhs {
			if k < len(rhs) && p.objOf(lhs[k]) == obj {
				if call, ok := ast.Unparen(rhs[k]).(*ast.CallExpr); ok && len(call.Args) == 2 {
					if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "make" {
						capacity = call.Args[1]
					}
				}
			}
		}
	}
	return capacity
}

// assignment returns the two sides of an assignment or a var declaration.
func assignment(st ast.Stmt) (lhs, rhs []ast.Expr) {
	switch st := st.(type) {
	case *ast.AssignStmt:
		return st.Lhs, st.Rhs
	case *ast.DeclStmt:
		if gd, ok := st.Decl.(*ast.GenDecl); ok && len(gd.Specs) == 1 {
			if vs, ok := gd.Specs[0].(*ast.ValueSpec); ok {
				for _, n := range vs.Names {
					lhs = append(lhs, n)
				}
				return lhs, vs.Values
			}
		}
	}
	return nil, nil
}

// specStmts returns st, or, where st is a var block, each of its lines as
// a declaration of its own.
func specStmts(st ast.Stmt) []ast.Stmt {
	if ds, ok := st.(*ast.DeclStmt); ok {
		if gd, ok := ds.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR && len(gd.Specs) > 1 {
			var sts []ast.Stmt
			for _, spec := range gd.Specs {
				sts = append(sts, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: spec.Pos(), Tok: token.VAR, Specs: []ast.Spec{spec}}})
			}
			return sts
		}
	}
	return []ast.Stmt{st}
}

// errgroupSetup finds the errgroup's SetLimit and WithContext before the
// loop.
func (p *pass) errgroupSetup(f *fan) {
	for _, st := range f.list[:f.at] {
		if es, ok := st.(*ast.ExprStmt); ok {
			if call, ok := ast.Unparen(es.X).(*ast.CallExpr); ok && len(call.Args) == 1 {
				if fn := goparapi.Callee(p.TypesInfo, call); fn != nil && isMethod(fn, "golang.org/x/sync/errgroup", "Group", "SetLimit") && p.recvObj(call) == f.group {
					f.limit = call.Args[0]
				}
			}
		}
		for _, st := range specStmts(st) {
			lhs, rhs := assignment(st)
			if len(lhs) == 2 && len(rhs) == 1 && p.objOf(lhs[0]) == f.group {
				if call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr); ok && len(call.Args) == 1 {
					if fn := goparapi.Callee(p.TypesInfo, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "golang.org/x/sync/errgroup" && fn.Name() == "WithContext" {
						f.gctx, f.pctx = p.objOf(lhs[1]), call.Args[0]
					}
				}
			}
		}
	}
	if f.limit == nil {
		p.weightedLimit(f)
	}
}

// weightedLimit finds a semaphore.Weighted, made before the loop with
// semaphore.NewWeighted(n), of which each of the errgroup's tasks acquires
// one unit: n bounds the tasks at once, as SetLimit(n) would.
func (p *pass) weightedLimit(f *fan) {
	var sem types.Object
	ast.Inspect(f.body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return true
		}
		if fn := goparapi.Callee(p.TypesInfo, call); fn != nil && isMethod(fn, "golang.org/x/sync/semaphore", "Weighted", "Acquire") {
			if tv := p.TypesInfo.Types[call.Args[1]]; tv.Value != nil && tv.Value.String() == "1" {
				sem = p.outer(f, p.recvObj(call))
			}
		}
		return sem == nil
	})
	if sem == nil {
		return
	}
	for _, st := range f.list[:f.at] {
		lhs, rhs := assignment(st)
		if len(lhs) != 1 || len(rhs) != 1 || p.objOf(lhs[0]) != sem {
			continue
		}
		if call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr); ok && len(call.Args) == 1 {
			if fn := goparapi.Callee(p.TypesInfo, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "golang.org/x/sync/semaphore" && fn.Name() == "NewWeighted" {
				f.limit, f.weighted = call.Args[0], sem
			}
		}
	}
}

// report reports f, with fixes where the rewrite is exact.
func (p *pass) report(f *fan) {
	src := p.sourceText(f)
	limit := "n"
	if f.limit != nil {
		limit = p.src(f.limit)
	}
	var what, form string
	switch f.shape {
	case "waitgroup", "wg.Go":
		what = "a goroutine per item with a sync.WaitGroup"
		form = fmt.Sprintf("%s.ForEach on the pool for CPU-bound work, or %s.Blocking(%s).ForEach for work that blocks on I/O", src, src, limit)
	case "semaphore", "weighted":
		what = "a goroutine per item bounded by a semaphore"
		form = fmt.Sprintf("%s.Blocking(%s).ForEach (at most %s at once) for work that blocks on I/O, or %s.ForEach on the pool for CPU-bound work", src, limit, limit, src)
	case "errgroup":
		what = "an errgroup loop"
		if f.weighted != nil {
			what = fmt.Sprintf("an errgroup loop whose tasks each take a unit of %s, a semaphore.Weighted", f.weighted.Name())
		}
		try := "TryForEach"
		if f.gctx != nil && f.gctx.Name() != "_" {
			try = "TryForEachContext"
			src += ".WithContext(" + p.src(f.pctx) + ")"
		}
		errs := "first error; ForEachErr for every error"
		if (f.gctx == nil || f.gctx.Name() == "_") && p.mayFail(f.body) {
			// The group runs every item, even after one has failed.
			try, errs = "ForEach", "every item runs, as in the group, and the first error is kept, as its Wait returns it; ForEachErr for every error"
		}
		if f.limit != nil {
			form = fmt.Sprintf("%s.Blocking(%s).%s (at most %s at once, %s) for work that blocks on I/O, or %s.%s on the pool for CPU-bound work", src, limit, try, limit, errs, src, try)
		} else {
			form = fmt.Sprintf("%s.%s (%s) on the pool for CPU-bound work, or %s.Blocking(n).%s for work that blocks on I/O", src, try, errs, src, try)
		}
	case "group":
		what = fmt.Sprintf("a goroutine per item on a group with Go and Wait methods (%s)", typeName(f.group.Type()))
		form = fmt.Sprintf("%s.TryForEach, or ForEachErr for every error, on the pool for CPU-bound work, or with Blocking(n) for work that blocks on I/O", src)
		if isIndexed(f.group.Type()) {
			what = "a goroutine per item on minio's errgroup, which keeps each task's error at its index"
			form = fmt.Sprintf("%s.ForEach, each error kept at its index in a slice (errs[i] = f()), on the pool for CPU-bound work, or with Blocking(n) for work that blocks on I/O", src)
		}
	case "counted":
		what = fmt.Sprintf("a goroutine per item joined by counting receives from %s", f.sem.Name())
		form = fmt.Sprintf("%s.Map(...).Collect, or TryForEach for errors, on the pool for CPU-bound work, or with Blocking(%s) for work that blocks on I/O", src, limit)
		if f.ch != nil {
			what = fmt.Sprintf("a pool of %s worker goroutines draining %s, joined by counting receives from %s", p.loopCount(f), f.ch.Name(), f.sem.Name())
			if n := p.count(f.loop); n != nil {
				limit = p.src(n)
			}
			form = fmt.Sprintf("a range over par.Map(%s, f).Values() in the receiving loop, on the pool for CPU-bound work, or over par.Map(%s.Blocking(%s), f).Values() for work that blocks on I/O", src, src, limit)
		}
	case "refill":
		what = "a goroutine per item bounded by a semaphore, joined by refilling it"
		form = fmt.Sprintf("%s.Blocking(%s).ForEach (at most %s at once) for work that blocks on I/O, or %s.ForEach on the pool for CPU-bound work", src, limit, limit, src)
	case "workers":
		kind, op := "worker goroutines", "ForEach"
		if p.isGroup(f.group) {
			kind, op = "errgroup workers", "TryForEach"
		}
		what = fmt.Sprintf("a pool of %s %s draining a channel", p.loopCount(f), kind)
		if n := p.loopCount(f); strings.Contains(strings.ToLower(n), "worker") {
			// "a pool of workers worker goroutines": the count names them.
			what = fmt.Sprintf("a pool of %s (as many as %s) draining a channel", kind, n)
		}
		form = fmt.Sprintf("par.FromChan(%s).Blocking(%s).%s over what the producer sends (par.Slice where it sends a slice's items) for work that blocks on I/O, or %s on the pool for CPU-bound work", f.ch.Name(), p.loopCount(f), op, op)
	}
	counter := p.counterWorker(f)
	if counter != nil {
		what, form = p.counterReport(f, counter)
	}
	msg := fmt.Sprintf("fan-out: %s; gopar replaces it with %s", what, form)
	if f.shape != "workers" && counter == nil && p.perChunk(f) {
		// n goroutines each loop over a chunk of the items: the report
		// points at the items, whose blocks gopar sizes and balances.
		what = strings.Replace(what, "a goroutine per item", fmt.Sprintf("a goroutine per chunk of items (%s chunks)", p.loopCount(f)), 1)
		msg = fmt.Sprintf("fan-out: %s; gopar replaces it with a loop over the items themselves, not their chunks: par.Range(0, n) over the whole range or par.Slice(items), with ForEach on the pool for CPU-bound work (gopar sizes the blocks and balances them), or %s over the chunks as they are", what, form)
	}
	var fixes []analysis.SuggestedFix
	var why string
	if wait := p.waitsOnOthers(f); wait != "" {
		// Callbacks that wait on each other, or run until stopped, must
		// all run at once: a pool or a limit would starve or deadlock them.
		msg = fmt.Sprintf("fan-out: %s whose goroutines wait (%s), so they may need to run all at once; gopar's pool or a limit could starve or deadlock them", what, wait)
		why = "a rewrite would cap how many run at once"
	} else {
		fixes, why = p.fixes(f)
	}
	if len(fixes) == 0 {
		msg += "; no fix: " + why
	}
	p.Report(analysis.Diagnostic{Pos: f.loop.Pos(), End: f.loop.End(), Message: msg, SuggestedFixes: fixes})
}

// typeName returns the name of t's named type, through a pointer.
func typeName(t types.Type) string {
	if ptr, ok := t.Underlying().(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return t.String()
}

// loopCount returns the number of iterations of the counted loop of f, as
// written, or "n".
func (p *pass) loopCount(f *fan) string {
	if n := p.count(f.loop); n != nil {
		return p.src(n)
	}
	return "n"
}

// count returns n for for i := 0; i < n; i++ and for range n, else nil.
func (p *pass) count(loop ast.Stmt) ast.Expr {
	switch l := loop.(type) {
	case *ast.RangeStmt:
		if b, ok := p.TypesInfo.TypeOf(l.X).Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
			return l.X
		}
	case *ast.ForStmt:
		if lo, op, hi := p.counting(l); lo == "0" && op == token.LSS {
			return hi
		}
	}
	return nil
}

// counting returns, for a loop for i := lo; i OP hi; i++ with lo a
// literal, lo's text, OP and hi; "" where l is not such a loop.
func (p *pass) counting(l *ast.ForStmt) (string, token.Token, ast.Expr) {
	as, ok := l.Init.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Tok != token.DEFINE {
		return "", 0, nil
	}
	lit, ok := ast.Unparen(as.Rhs[0]).(*ast.BasicLit)
	cond, ok2 := l.Cond.(*ast.BinaryExpr)
	inc, ok3 := l.Post.(*ast.IncDecStmt)
	if !ok || !ok2 || !ok3 || inc.Tok != token.INC {
		return "", 0, nil
	}
	id := identOf(as.Lhs[0])
	if id == nil {
		return "", 0, nil
	}
	v := p.TypesInfo.ObjectOf(id)
	if v == nil || p.objOf(cond.X) != v || p.objOf(inc.X) != v {
		return "", 0, nil
	}
	return lit.Value, cond.Op, cond.Y
}

// workerCount returns how many rounds loop, which starts workers, makes:
// count's, or hi for a count from 1 (for w := 1; w <= hi; w++). Only for
// workers that do not use the counter (spawnsOnly).
func (p *pass) workerCount(loop ast.Stmt) ast.Expr {
	if n := p.count(loop); n != nil {
		return n
	}
	if l, ok := loop.(*ast.ForStmt); ok {
		if lo, op, hi := p.counting(l); lo == "1" && op == token.LEQ {
			return hi
		}
	}
	return nil
}

// sourceText returns the par source that stands for the loop's items, as
// code for the message.
func (p *pass) sourceText(f *fan) string {
	if f.shape == "workers" || f.shape == "counted" && f.ch != nil {
		return "par.Slice(items)"
	}
	if n := p.count(f.loop); n != nil {
		return "par.Range(0, " + p.src(n) + ")"
	}
	if r, ok := f.loop.(*ast.RangeStmt); ok {
		switch p.TypesInfo.TypeOf(r.X).Underlying().(type) {
		case *types.Slice, *types.Array:
			return "par.Slice(" + p.src(r.X) + ")"
		case *types.Map:
			return "par.FromSeq(maps.Keys(" + p.src(r.X) + "))"
		case *types.Chan:
			return "par.FromChan(" + p.src(r.X) + ")"
		case *types.Signature:
			if r.Value == nil {
				return "par.FromSeq(" + p.src(r.X) + ")"
			}
		}
	}
	return "par.FromSeq(items)"
}

// perChunk reports whether the goroutines of f each loop over a chunk of
// the items: the fan-out's loop counts (for i := 0; i < n; i++, for range
// n), and the goroutine's body has, at its top level, a for loop whose
// bounds, or anywhere a slice expression (xs[lo:hi]) whose indexes, use
// the loop's variable, the goroutine's parameters, or a variable the
// loop's body declares.
func (p *pass) perChunk(f *fan) bool {
	if f.body == nil || p.count(f.loop) == nil {
		return false
	}
	from := func(e ast.Node) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || found {
				return !found
			}
			obj := p.TypesInfo.Uses[id]
			if obj == nil {
				return true
			}
			if pos := obj.Pos(); f.loop.Pos() <= pos && pos < f.loop.End() && !(f.body.Pos() <= pos && pos < f.body.End()) {
				found = true // the loop's variable, one its body declares, or the goroutine's parameter
			}
			return true
		})
		return found
	}
	for _, st := range f.body.List {
		if l, ok := st.(*ast.ForStmt); ok && ((l.Init != nil && from(l.Init)) || (l.Cond != nil && from(l.Cond))) {
			return true
		}
	}
	chunk := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		if se, ok := n.(*ast.SliceExpr); ok && ((se.Low != nil && from(se.Low)) || (se.High != nil && from(se.High))) {
			chunk = true
		}
		return !chunk
	})
	return chunk
}

// src returns the source text of n.
func (p *pass) src(n ast.Node) string {
	tf := p.Fset.File(n.Pos())
	content, err := p.ReadFile(tf.Name())
	if err != nil {
		return types.ExprString(n.(ast.Expr))
	}
	return string(content[tf.Offset(n.Pos()):tf.Offset(n.End())])
}

// waitsOnOthers returns, where f's goroutines wait on something other than
// the fan-out's own semaphore or channel (a receive, a select, a Wait, an
// endless loop, a server: Serve..., Listen..., Accept), itself or in a function of this package
// that they call, that thing, quoted; "" otherwise. Such goroutines may
// wait on each other or run until stopped, so they may need to run all at
// once. A receive from a timer, a select that ends by itself (timedSelect)
// and the goroutines a task starts are not such waits.
func (p *pass) waitsOnOthers(f *fan) string {
	if f.shape == "workers" || f.ch != nil {
		return "" // waiting on the producer is what they do
	}
	return p.waits(f.body, f.body, f, map[*types.Func]bool{})
}

// waits returns what in body, a part of the function body scope, waits on
// something that other tasks of f may have to do, or "". A join of the
// task's own (a WaitGroup, an errgroup or a channel that scope declares
// and keeps to itself: the task's goroutines report to it) waits on its
// own work, not on the other tasks.
func (p *pass) waits(body, scope *ast.BlockStmt, f *fan, seen map[*types.Func]bool) string {
	var found string
	quote := func(n ast.Node) string {
		text, _, _ := strings.Cut(p.src(n), "\n")
		if len(text) > 30 {
			text = text[:30] + "..."
		}
		return "`" + strings.TrimSpace(text) + "`"
	}
	spin := p.spinSelects(body)
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			// A goroutine the task starts on its own (a spinner, a
			// watchdog): its waits are not the task's.
			return false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && (f.sem == nil || p.outer(f, p.objOf(n.X)) != f.sem) && !p.timerChan(n.X) && !p.ownLocal(n.X, scope) {
				found = quote(n)
			}
		case *ast.SelectStmt:
			if !p.timedSelect(n, scope, f) && (!hasDefault(n) || spin[n]) {
				found = "a select"
				break
			}
			// A sleep that a context may cut short: what its cases run
			// may still wait.
			for _, c := range n.Body.List {
				for _, st := range c.(*ast.CommClause).Body {
					if w := p.waits(&ast.BlockStmt{List: []ast.Stmt{st}}, scope, f, seen); w != "" && found == "" {
						found = w
					}
				}
			}
			return false
		case *ast.RangeStmt:
			if t := p.TypesInfo.TypeOf(n.X); t != nil {
				if _, ok := t.Underlying().(*types.Chan); ok && !p.ownLocal(n.X, scope) {
					found = "a range over the channel " + quote(n.X)
				}
			}
		case *ast.ForStmt:
			if n.Cond == nil && !hasExit(n.Body) {
				found = "an endless for loop"
			}
		case *ast.CallExpr:
			fn := goparapi.Callee(p.TypesInfo, n)
			if fn == nil {
				break
			}
			fn = fn.Origin()
			recv := goparapi.RecvName(fn)
			switch {
			case fn.Name() == "Wait" && recv != "" && fn.Pkg() != nil && (fn.Pkg().Path() == "sync" || fn.Pkg().Path() == "golang.org/x/sync/errgroup"):
				if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); !ok || !p.ownLocal(sel.X, scope) {
					found = quote(n)
				}
			case word(fn.Name(), "Serve") || word(fn.Name(), "Listen") || recv != "" && fn.Name() == "Accept":
				found = quote(n) // a server: it runs until stopped
			case f.shape == "group" && f.group != nil && p.outer(f, p.recvObj(n)) == f.group:
				// The group's own methods (a limiter's Give) are its join.
			default:
				if fd := p.funcs[fn]; fd != nil && !seen[fn] {
					seen[fn] = true
					if w := p.waits(fd.Body, fd.Body, f, seen); w != "" {
						found = w + " in " + fn.Name()
					}
				}
			}
		}
		return found == ""
	})
	return found
}

// word reports whether name is w or begins with the word w: Serve,
// ServeHTTP and ListenAndServe, not ServerInfo or Listeners.
func word(name, w string) bool {
	rest, ok := strings.CutPrefix(name, w)
	return ok && (rest == "" || unicode.IsUpper(rune(rest[0])))
}

// ownLocal reports whether x is a variable that scope declares with a
// value of its own (freshDecl) and keeps to itself: it is only waited on,
// received from, sent on, ranged over, closed (by close or a closer), or
// handed to a goroutine that scope starts (go worker(ch, &wg)) or to a
// call it defers. Each run of scope then has its own, which no other task
// can reach.
func (p *pass) ownLocal(x ast.Expr, scope *ast.BlockStmt) bool {
	id := identOf(x)
	if id == nil {
		return false
	}
	v, ok := p.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Pos() < scope.Pos() || v.Pos() >= scope.End() || !p.freshDecl(v, scope) {
		return false
	}
	kept := true
	var stack []ast.Node
	ast.Inspect(scope, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if use, ok := n.(*ast.Ident); ok && p.TypesInfo.Uses[use] == v && !p.keptUse(use, stack) {
			kept = false
		}
		stack = append(stack, n)
		return kept
	})
	return kept
}

// keptUse reports whether use, under the nodes of stack (its parent last),
// keeps its variable to the scope: see ownLocal.
func (p *pass) keptUse(use ast.Expr, stack []ast.Node) bool {
	parent := stack[len(stack)-1]
	if u, ok := parent.(*ast.UnaryExpr); ok && u.Op == token.AND && len(stack) > 1 {
		use, parent = u, stack[len(stack)-2] // &wg, passed on
		stack = stack[:len(stack)-1]
	}
	switch n := parent.(type) {
	case *ast.SelectorExpr:
		return n.X == use && p.TypesInfo.Selections[n] != nil && p.TypesInfo.Selections[n].Kind() == types.MethodVal && len(stack) > 1 && isCallOf(stack[len(stack)-2], n)
	case *ast.UnaryExpr:
		return n.Op == token.ARROW
	case *ast.SendStmt:
		return n.Chan == use
	case *ast.RangeStmt:
		return n.X == use
	case *ast.CallExpr:
		if b, ok := p.TypesInfo.Uses[identOf(n.Fun)].(*types.Builtin); ok {
			return b.Name() == "close" || b.Name() == "len" || b.Name() == "cap"
		}
		if len(stack) < 2 || n.Fun == use {
			return false
		}
		if p.closer(n) {
			return true
		}
		// An argument of a goroutine the scope starts, or of a call it
		// defers (defer closeAll(ch)).
		switch st := stack[len(stack)-2].(type) {
		case *ast.GoStmt:
			return st.Call == n
		case *ast.DeferStmt:
			return st.Call == n
		}
		return false
	}
	return false
}

// closer reports whether call closes the channel it takes: a function
// (not a method) named Close or ending in Close (SafeClose, closeChan is
// not) whose one parameter is a channel, as a close that tolerates a
// closed channel is.
func (p *pass) closer(call *ast.CallExpr) bool {
	fn := goparapi.Callee(p.TypesInfo, call)
	if fn == nil || goparapi.RecvName(fn) != "" || !strings.HasSuffix(fn.Name(), "Close") && fn.Name() != "close" {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return false
	}
	_, ok := sig.Params().At(0).Type().Underlying().(*types.Chan)
	return ok
}

// isCallOf reports whether n is a call of fun.
func isCallOf(n ast.Node, fun ast.Expr) bool {
	call, ok := n.(*ast.CallExpr)
	return ok && call.Fun == fun
}

// freshDecl reports whether scope declares v with a value of its own: its
// zero value (var wg sync.WaitGroup), or one that makes a group or a
// channel (declValue: make, new, &T{}, errgroup.WithContext), not a copy
// of another variable's channel or pointer.
func (p *pass) freshDecl(v *types.Var, scope *ast.BlockStmt) bool {
	fresh := false
	ast.Inspect(scope, func(n ast.Node) bool {
		var names []*ast.Ident
		var values []ast.Expr
		switch n := n.(type) {
		case *ast.ValueSpec:
			names, values = n.Names, n.Values
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				return true
			}
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					names = append(names, id)
				}
			}
			values = n.Rhs
		default:
			return true
		}
		for i, id := range names {
			if p.TypesInfo.Defs[id] != v {
				continue
			}
			switch {
			case len(values) == 0:
				fresh = true
			case len(values) == len(names):
				fresh = declValue(p.TypesInfo, values[i])
			case len(values) == 1: // g, ctx := errgroup.WithContext(ctx)
				fresh = declValue(p.TypesInfo, values[0])
			}
			return false
		}
		return true
	})
	return fresh
}

// timerChan reports whether ch is a timer's channel: time.After's or
// time.Tick's result, or the C of a *time.Timer or *time.Ticker. A receive
// from it is a sleep, which ends by itself.
func (p *pass) timerChan(ch ast.Expr) bool {
	ch = ast.Unparen(ch)
	if call, ok := ch.(*ast.CallExpr); ok {
		fn := goparapi.Callee(p.TypesInfo, call)
		return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "time" && (fn.Name() == "After" || fn.Name() == "Tick")
	}
	sel, ok := ch.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "C" {
		return false
	}
	ptr, ok := p.TypesInfo.TypeOf(sel.X).(*types.Pointer)
	if !ok {
		return false
	}
	named, ok := ptr.Elem().(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "time" && (named.Obj().Name() == "Timer" || named.Obj().Name() == "Ticker")
}

// ctxDone reports whether ch is a context's Done channel.
func (p *pass) ctxDone(ch ast.Expr) bool {
	call, ok := ast.Unparen(ch).(*ast.CallExpr)
	if !ok {
		return false
	}
	fn := goparapi.Callee(p.TypesInfo, call)
	return fn != nil && fn.Name() == "Done" && fn.Pkg() != nil && fn.Pkg().Path() == "context"
}

// timedSelect reports whether sel does not wait on the other tasks. Its
// receives are all from a timer, a context's Done or a channel of the
// task's own (ownLocal in scope), and it ends by itself (a timer case or
// the default: a back-off sleep that a context may cut short, an offer
// that drops what a full channel cannot take), or it has a case on a
// channel of the task's own (a send to the task's own goroutine that a
// context may cancel). A receive from any other channel may wait for
// another task, or poll for a stop: such a select waits, unless a timer
// case returns and the channel is a field or a package variable (or a
// copy of one) that no task of f sends on or closes, itself or in a
// function of the package it calls (taskSignals): a sleep that the
// program may cut short, which ends without the other tasks.
func (p *pass) timedSelect(sel *ast.SelectStmt, scope *ast.BlockStmt, f *fan) bool {
	ends, own, foreignSend := false, false, false
	var unsignalled []ast.Expr // receives from channels the tasks never signal
	returns := false           // a timer case returns
	for _, c := range sel.Body.List {
		cc := c.(*ast.CommClause)
		switch st := cc.Comm.(type) {
		case nil:
			ends = true // the default
		case *ast.SendStmt:
			if p.ownLocal(st.Chan, scope) {
				own = true
			} else {
				foreignSend = true
			}
		default:
			ch := commRecv(st)
			switch {
			case ch == nil:
				return false
			case p.timerChan(ch):
				ends = true
				if len(cc.Body) > 0 {
					_, r := cc.Body[len(cc.Body)-1].(*ast.ReturnStmt)
					returns = returns || r
				}
			case p.ctxDone(ch):
			case p.ownLocal(ch, scope):
				own = true
			default:
				unsignalled = append(unsignalled, ch)
			}
		}
	}
	if len(unsignalled) > 0 {
		// A sleep that a channel of the program's may cut short (minio's
		// dynamicSleeper: a timer, and a cycle channel closed when the
		// settings change): the timer ends it by returning, and no task
		// sends on or closes that channel, so it waits on no other task.
		signals := p.taskSignals(f)
		for _, ch := range unsignalled {
			src := p.chanSource(ch, scope)
			if src == nil || signals[src] {
				return false
			}
		}
		return returns && !foreignSend
	}
	return ends || own && !foreignSend
}

// hasDefault reports whether sel has a default case: it never waits.
func hasDefault(sel *ast.SelectStmt) bool {
	return slices.ContainsFunc(sel.Body.List, func(c ast.Stmt) bool { return c.(*ast.CommClause).Comm == nil })
}

// spinSelects returns the selects of body that poll: those whose
// innermost loop has no condition, or a condition on a variable that a
// select's case of the loop assigns (for !done { select { case <-stop:
// done = true; default: } }). A select with a default there goes round
// until something happens, which waits as a blocking select does; in a
// loop that ends by itself (a count, an iterator's Next, a range) the same
// select only checks.
func (p *pass) spinSelects(body ast.Node) map[*ast.SelectStmt]bool {
	spin := map[*ast.SelectStmt]bool{}
	var walk func(n ast.Node, inSpin bool)
	walk = func(n ast.Node, inSpin bool) {
		ast.Inspect(n, func(c ast.Node) bool {
			switch c := c.(type) {
			case *ast.FuncLit:
				if c != n {
					walk(c.Body, false)
					return false
				}
			case *ast.ForStmt:
				if c != n {
					walk(c.Body, c.Cond == nil || p.caseAssigned(c.Body, c.Cond))
					return false
				}
			case *ast.RangeStmt:
				if c != n {
					walk(c.Body, false)
					return false
				}
			case *ast.SelectStmt:
				if inSpin {
					spin[c] = true
				}
			}
			return true
		})
	}
	walk(body, false)
	return spin
}

// caseAssigned reports whether a case of a select in body assigns a
// variable that cond uses.
func (p *pass) caseAssigned(body *ast.BlockStmt, cond ast.Expr) bool {
	used := map[types.Object]bool{}
	ast.Inspect(cond, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && p.TypesInfo.Uses[id] != nil {
			used[p.TypesInfo.Uses[id]] = true
		}
		return true
	})
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectStmt)
		if !ok {
			return !found
		}
		for _, c := range sel.Body.List {
			for _, st := range c.(*ast.CommClause).Body {
				ast.Inspect(st, func(n ast.Node) bool {
					if as, ok := n.(*ast.AssignStmt); ok {
						for _, l := range as.Lhs {
							if o := p.objOf(l); o != nil && used[o] {
								found = true
							}
						}
					}
					return !found
				})
			}
		}
		return !found
	})
	return found
}

// chanSource returns the field or package variable that ch, a channel,
// is: x.f, pkg.V, or a variable of scope declared from one (c := x.f);
// nil otherwise.
func (p *pass) chanSource(ch ast.Expr, scope *ast.BlockStmt) types.Object {
	if src := p.written(ch); src != nil {
		if v := src.(*types.Var); shared(v) {
			return v
		}
	}
	id := identOf(ch)
	if id == nil {
		return nil
	}
	v, ok := p.TypesInfo.Uses[id].(*types.Var)
	if !ok {
		return nil
	}
	var src types.Object
	ast.Inspect(scope, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == len(as.Rhs) {
			for k, l := range as.Lhs {
				if p.TypesInfo.Defs[identOf(l)] == v {
					if sel, ok := ast.Unparen(as.Rhs[k]).(*ast.SelectorExpr); ok {
						src = p.chanSource(sel, scope)
					}
				}
			}
		}
		return src == nil
	})
	return src
}

// taskSignals returns the channels, fields and package variables, that f's
// goroutines send on or close, themselves or in the functions of the
// package they call (effectsOf).
func (p *pass) taskSignals(f *fan) map[types.Object]bool {
	if f.body == nil {
		return nil
	}
	signals := maps.Clone(p.calledEffects(f.body).signals)
	p.signalsIn(f.body, f.body, signals)
	return signals
}

// commRecv returns the channel that comm, a select case, receives from
// (<-ch, v := <-ch, v, ok = <-ch), or nil.
func commRecv(comm ast.Stmt) ast.Expr {
	switch st := comm.(type) {
	case *ast.ExprStmt:
		return recvChan(st.X)
	case *ast.AssignStmt:
		if len(st.Rhs) == 1 {
			return recvChan(st.Rhs[0])
		}
	}
	return nil
}

// recvChan returns the channel that e receives from, or nil.
func recvChan(e ast.Expr) ast.Expr {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u.X
	}
	return nil
}

// hasExit reports whether body has a return, a break or a goto (outside
// nested functions): a loop with one ends.
func hasExit(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		case *ast.BranchStmt:
			if n.Tok == token.BREAK || n.Tok == token.GOTO {
				found = true
			}
		}
		return !found
	})
	return found
}
