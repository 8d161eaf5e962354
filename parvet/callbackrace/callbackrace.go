// Package callbackrace defines an analyzer that reports data races in the
// functions passed to gopar's parallel operations.
//
// # Analyzer callbackrace
//
// callbackrace: report writes that race between concurrent calls of a gopar callback
//
// The functions handed to gopar's operations (every par terminal operation
// and adapter, Join, JoinAll, JoinFunc, the tasks of Scope and TryScope, and
// the runtime package's Join, Go and Spawn) run on several goroutines at
// once. A write in such a function to a variable it shares with its other
// calls is a data race: the sum comes out short, appended items are lost, a
// map is corrupted. The analyzer reports, in a function literal passed to
// such an operation:
//
//   - an assignment, compound assignment or ++/-- of a variable captured from
//     an enclosing function, or of a package-level variable;
//   - an append to a captured slice, a write to or delete from a captured
//     map, a write to a field of a captured struct or through a captured
//     pointer, a write to the same element of a captured slice in every call
//     and an update of an element picked by the item (a histogram);
//   - a mutating method call on a captured value of a type that is not safe
//     for concurrent use (strings.Builder, bytes.Buffer, math/rand.Rand,
//     container/list.List, bufio.Writer).
//
// It does not report a write to the element the call owns (out[i] with i
// the index ForEachIndex or ForEachPtr gives, the item of a range ForEach, an
// index of a block body's [lo, hi)), a write made while a mutex is locked,
// inside sync.Once, through sync/atomic, a channel or any method of a type
// not listed above, or to a variable declared inside the callback. For Join,
// JoinAll and the runtime's Join, whose functions run once each, a write is
// reported only when another function of the same call uses the variable;
// for a task started with Group.Go, Pool.Go or Spawn, only when the
// task is started in a loop.
//
// The message says what races and what to use instead. Where the rewrite is
// exact, a suggested fix turns a ForEach whose body only accumulates into
// the operation that computes the result: total += f(x) into par.Sum,
// n++ into Count, out = append(out, f(x)) into Collect.
package callbackrace

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/gopar-dev/gopar/parvet/internal/goparapi"
)

// Analyzer reports data races in callbacks of gopar's parallel operations.
var Analyzer = &analysis.Analyzer{
	Name:     "callbackrace",
	Doc:      "report writes that race between concurrent calls of a gopar callback\n\nThe functions passed to gopar's parallel operations (par's terminal operations and adapters, Join, JoinAll, Scope's tasks, the runtime's forms) run on several goroutines at once. callbackrace reports, in such a function, a write to a captured variable, an append to a captured slice, a write to a captured map, to a field of a captured struct or through a captured pointer, unless the write is to the element the call owns (out[i] in ForEachIndex or ForEachPtr, a range ForEach, a block body's [lo, hi)), is made while a mutex is held, or goes through sync/atomic or a channel. The message says what to use instead (Sum, Reduce, Fold, Collect, ForEachPtr, an atomic); a suggested fix rewrites a ForEach that only sums, counts or appends.",
	URL:      "https://pkg.go.dev/github.com/gopar-dev/gopar/parvet/callbackrace",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      run,
}

// checker holds what one run needs.
type checker struct {
	pass *analysis.Pass
	cbs  map[*ast.FuncLit]*goparapi.Callback
	once map[*ast.FuncLit]bool // literals run under a sync.Once
}

func run(pass *analysis.Pass) (any, error) {
	if goparapi.IsGopar(pass.Pkg) {
		// gopar's own packages and their internal tests, which rely on what
		// their internals guarantee (a nil Worker runs Join's functions in
		// order, a closed pool runs them inline).
		return nil, nil
	}
	cbs := goparapi.Callbacks(pass)
	if len(cbs) == 0 {
		return nil, nil
	}
	c := &checker{pass: pass, cbs: cbs, once: onceLits(pass)}
	insp := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	types := []ast.Node{(*ast.AssignStmt)(nil), (*ast.IncDecStmt)(nil), (*ast.CallExpr)(nil), (*ast.RangeStmt)(nil)}
	insp.WithStack(types, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push || !c.inCallback(stack) {
			return true
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				return true
			}
			for _, lhs := range n.Lhs {
				c.check(stack, n, lhs)
			}
		case *ast.IncDecStmt:
			c.check(stack, n, n.X)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				for _, lhs := range []ast.Expr{n.Key, n.Value} {
					if lhs != nil {
						c.check(stack, n, lhs)
					}
				}
			}
		case *ast.CallExpr:
			c.checkCall(stack, n)
		}
		return true
	})
	return nil, nil
}

// inCallback reports whether a literal on stack is a gopar callback.
func (c *checker) inCallback(stack []ast.Node) bool {
	for _, n := range stack {
		if lit, ok := n.(*ast.FuncLit); ok && c.cbs[lit] != nil {
			return true
		}
	}
	return false
}

// onceLits returns the function literals passed to sync.Once.Do,
// sync.OnceFunc, sync.OnceValue and sync.OnceValues: they run once, so a
// write in them races with nothing.
func onceLits(pass *analysis.Pass) map[*ast.FuncLit]bool {
	out := map[*ast.FuncLit]bool{}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := goparapi.Callee(pass.TypesInfo, call)
			if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "sync" {
				return true
			}
			switch fn.Name() {
			case "Do", "OnceFunc", "OnceValue", "OnceValues":
				for _, a := range call.Args {
					if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok {
						out[lit] = true
					}
				}
			}
			return true
		})
	}
	return out
}

// step is one step of the path from a variable to the storage a write
// changes.
type step struct {
	kind  int // field, deref, elem or mapElem
	index ast.Expr
}

const (
	field = iota
	deref
	elem
	mapElem
)

// lvalue returns the variable at the root of the storage that e denotes, and
// the path from it, or nil where e is not rooted at a variable (f().x).
func lvalue(info *types.Info, e ast.Expr) (*types.Var, []step) {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := info.ObjectOf(e).(*types.Var)
		if v == nil || v.IsField() || e.Name == "_" {
			return nil, nil
		}
		return v, nil
	case *ast.SelectorExpr:
		if sel := info.Selections[e]; sel != nil && sel.Kind() == types.FieldVal {
			v, path := lvalue(info, e.X)
			if v == nil {
				return nil, nil
			}
			if sel.Indirect() {
				path = append(path, step{kind: deref})
			}
			return v, append(path, step{kind: field})
		}
		// A package-qualified variable: pkg.V.
		if v, ok := info.ObjectOf(e.Sel).(*types.Var); ok && !v.IsField() {
			return v, nil
		}
	case *ast.IndexExpr:
		v, path := lvalue(info, e.X)
		if v == nil {
			return nil, nil
		}
		t := info.TypeOf(e.X)
		if t == nil {
			return nil, nil
		}
		switch u := t.Underlying().(type) {
		case *types.Map:
			return v, append(path, step{kind: mapElem, index: e.Index})
		case *types.Slice:
			return v, append(path, step{kind: elem, index: e.Index})
		case *types.Array:
			return v, append(path, step{kind: elem, index: e.Index})
		case *types.Pointer:
			if _, ok := u.Elem().Underlying().(*types.Array); ok {
				return v, append(path, step{kind: deref}, step{kind: elem, index: e.Index})
			}
		}
	case *ast.StarExpr:
		v, path := lvalue(info, e.X)
		if v == nil {
			return nil, nil
		}
		return v, append(path, step{kind: deref})
	}
	return nil, nil
}

// race is what check found out about one write.
type race struct {
	v        *types.Var
	path     []step
	cb       *goparapi.Callback
	lit      *ast.FuncLit // the concurrent callback
	readLock bool
}

// shared returns the callback whose concurrent calls share v at the node on
// top of stack, or nil if none does.
func (c *checker) shared(stack []ast.Node, v *types.Var) (*goparapi.Callback, *ast.FuncLit) {
	for i := len(stack) - 1; i >= 0; i-- {
		lit, ok := stack[i].(*ast.FuncLit)
		if !ok {
			continue
		}
		if lit.Pos() <= v.Pos() && v.Pos() < lit.End() {
			return nil, nil // declared in this call: one per call
		}
		if c.once[lit] {
			return nil, nil
		}
		cb := c.cbs[lit]
		if cb == nil {
			continue
		}
		switch cb.Kind {
		case goparapi.Many:
			if c.oneAtATime(cb) {
				continue
			}
			return cb, lit
		case goparapi.Sibling:
			if c.siblingUses(cb.Call, lit, v) {
				return cb, lit
			}
		case goparapi.Spawned:
			if loopAround(stack[:i], v) {
				return cb, lit
			}
		}
	}
	return nil, nil
}

// oneAtATime reports whether the operation of cb runs its calls one at a
// time: over Blocking(1), or the runtime's JoinFunc on a nil Worker.
func (c *checker) oneAtATime(cb *goparapi.Callback) bool {
	info := c.pass.TypesInfo
	if cb.Fn.Name() == "JoinFunc" && goparapi.IsRuntime(cb.Fn.Pkg()) && len(cb.Call.Args) > 0 {
		if tv, ok := info.Types[cb.Call.Args[0]]; ok && tv.IsNil() {
			return true
		}
	}
	for e := c.source(cb); e != nil; {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		fn := goparapi.Callee(info, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != goparapi.ParPath {
			return false
		}
		if fn.Name() == "Blocking" && len(call.Args) == 1 {
			if tv, ok := info.Types[call.Args[0]]; ok && tv.Value != nil && tv.Value.String() == "1" {
				return true
			}
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || goparapi.RecvName(fn) == "" {
			return false
		}
		e = sel.X
	}
	return false
}

// siblingUses reports whether another function literal passed to call uses v.
func (c *checker) siblingUses(call *ast.CallExpr, self *ast.FuncLit, v *types.Var) bool {
	for _, a := range call.Args {
		lit, ok := ast.Unparen(a).(*ast.FuncLit)
		if !ok || lit == self {
			continue
		}
		used := false
		ast.Inspect(lit, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && c.pass.TypesInfo.Uses[id] == v {
				used = true
			}
			return !used
		})
		if used {
			return true
		}
	}
	return false
}

// loopAround reports whether a loop on stack, in the scope of v, encloses
// the node above it, so that the node runs once per iteration with the same v.
func loopAround(stack []ast.Node, v *types.Var) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		var body *ast.BlockStmt
		switch n := stack[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			if n.Pos() <= v.Pos() && v.Pos() < n.End() {
				return false
			}
		case *ast.ForStmt:
			body = n.Body
		case *ast.RangeStmt:
			body = n.Body
		}
		if body == nil {
			continue
		}
		if stack[i].Pos() <= v.Pos() && v.Pos() < stack[i].End() {
			return false // declared in the loop: one per iteration
		}
		return true
	}
	return false
}

// check looks at the write of lhs by statement stmt.
func (c *checker) check(stack []ast.Node, stmt ast.Node, lhs ast.Expr) {
	v, path := lvalue(c.pass.TypesInfo, lhs)
	if v == nil {
		return
	}
	c.checkWrite(stack, stmt, lhs, v, path, "")
}

// checkCall looks at delete and clear of captured maps and slices, and at
// mutating methods of types not safe for concurrent use.
func (c *checker) checkCall(stack []ast.Node, call *ast.CallExpr) {
	info := c.pass.TypesInfo
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && len(call.Args) > 0 {
		if b, ok := info.Uses[id].(*types.Builtin); ok && (b.Name() == "delete" || b.Name() == "clear") {
			v, path := lvalue(info, call.Args[0])
			if v == nil {
				return
			}
			// The whole map (or slice) changes: a write at an unknown key.
			t := info.TypeOf(call.Args[0])
			if _, isMap := t.Underlying().(*types.Map); isMap {
				path = append(path, step{kind: mapElem})
			} else {
				path = append(path, step{kind: elem})
			}
			c.checkWrite(stack, call, call.Args[0], v, path, b.Name())
			return
		}
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	fn := goparapi.Callee(info, call)
	if fn == nil || !unsafeMethod(fn) {
		return
	}
	v, path := lvalue(info, sel.X)
	if v == nil {
		return
	}
	c.checkWrite(stack, call, sel.X, v, append(path, step{kind: field}), typeName(fn))
}

// unsafeMethod reports whether fn is a method that changes a value of a
// standard library type documented as unsafe for concurrent use.
func unsafeMethod(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	recv, name := goparapi.RecvName(fn), fn.Name()
	switch fn.Pkg().Path() + "." + recv {
	case "strings.Builder":
		return name != "Len" && name != "Cap" && name != "String"
	case "bytes.Buffer":
		return name != "Len" && name != "Cap" && name != "String" && name != "Bytes" && name != "Available" && name != "AvailableBuffer"
	case "math/rand.Rand", "math/rand/v2.Rand":
		return true
	case "container/list.List":
		return name != "Len" && name != "Front" && name != "Back"
	case "bufio.Writer":
		return name != "Size" && name != "Available" && name != "Buffered" && name != "AvailableBuffer"
	}
	return false
}

func typeName(fn *types.Func) string {
	return fn.Pkg().Name() + "." + goparapi.RecvName(fn)
}

// checkWrite decides whether the write of v (along path) by stmt races, and
// reports it. method names the builtin or the unsafe type when stmt is a
// call.
func (c *checker) checkWrite(stack []ast.Node, stmt ast.Node, lhs ast.Expr, v *types.Var, path []step, method string) {
	cb, lit := c.shared(stack, v)
	if cb == nil {
		return
	}
	held, rheld := locked(stack, lit, stmt.Pos())
	if held {
		return
	}
	if cb.Kind == goparapi.Many && probe(c.pass.TypesInfo, lit, stmt) {
		return
	}
	own := c.ownVars(cb, lit)
	if cb.Kind == goparapi.Spawned {
		c.loopKeys(stack, lit, own)
	}
	if c.oneCall(stack, lit, stmt, own) {
		return
	}
	compound := false
	switch s := stmt.(type) {
	case *ast.IncDecStmt:
		compound = true
	case *ast.AssignStmt:
		compound = s.Tok != token.ASSIGN
	}
	for _, st := range path {
		if st.kind == elem && st.index != nil && c.owned(st.index, own, lit) {
			return // the call's own element
		}
	}
	what := "write"
	if len(path) > 0 {
		last := path[len(path)-1]
		mapBefore := false
		for _, st := range path[:len(path)-1] {
			if st.kind == mapElem {
				mapBefore = true
			}
		}
		if mapBefore {
			return // an element reached through a map value: not known to be shared
		}
		switch last.kind {
		case mapElem:
			what = "map"
		case elem:
			switch {
			case last.index == nil:
				what = "clear"
			case c.invariant(last.index, lit):
				what = "sameElem"
			case compound && !c.mentions(last.index, own):
				what = "histogram"
			default:
				return // a scatter: each call may write an element of its own
			}
		default:
			what = "field"
		}
	}
	if method != "" && method != "delete" && method != "clear" {
		what = "unsafeType"
	}
	c.report(stmt, lhs, v, what, method, cb, lit, rheld)
}

// probe reports whether stmt is the whole body of lit and sets a variable
// (not an element or a field) to a constant, the "was it called" probe of a test: every call writes the
// same value.
func probe(info *types.Info, lit *ast.FuncLit, stmt ast.Node) bool {
	if len(lit.Body.List) != 1 || lit.Body.List[0] != stmt {
		return false
	}
	as, ok := stmt.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Rhs) != 1 {
		return false
	}
	if _, ok := ast.Unparen(as.Lhs[0]).(*ast.Ident); !ok {
		return false
	}
	tv, ok := info.Types[as.Rhs[0]]
	return ok && tv.Value != nil
}

// oneCall reports whether stmt runs in one call of lit at most: under an if
// whose condition compares the call's own index with a value that is the
// same in every call (if i == 0 { ... }).
func (c *checker) oneCall(stack []ast.Node, lit *ast.FuncLit, stmt ast.Node, own map[types.Object]bool) bool {
	for i := len(stack) - 1; i >= 0 && stack[i] != lit; i-- {
		ifs, ok := stack[i].(*ast.IfStmt)
		if !ok || !(ifs.Body.Pos() <= stmt.Pos() && stmt.End() <= ifs.Body.End()) {
			continue
		}
		var conds []ast.Expr
		var split func(e ast.Expr)
		split = func(e ast.Expr) {
			if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && b.Op == token.LAND {
				split(b.X)
				split(b.Y)
				return
			}
			conds = append(conds, e)
		}
		split(ifs.Cond)
		for _, e := range conds {
			b, ok := ast.Unparen(e).(*ast.BinaryExpr)
			if !ok || b.Op != token.EQL {
				continue
			}
			if c.owned(b.X, own, lit) && c.invariant(b.Y, lit) || c.owned(b.Y, own, lit) && c.invariant(b.X, lit) {
				return true
			}
		}
	}
	return false
}

// loopKeys adds to own the index variables of the loops around the task
// lit (which start it, or the task that starts it, once per iteration): each
// task has its own iteration's index.
func (c *checker) loopKeys(stack []ast.Node, lit *ast.FuncLit, own map[types.Object]bool) {
	info := c.pass.TypesInfo
	i := len(stack) - 1
	for i >= 0 && stack[i] != lit {
		i--
	}
	for i--; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.FuncDecl:
			return
		case *ast.RangeStmt:
			if k, ok := n.Key.(*ast.Ident); ok && n.Tok == token.DEFINE && info.Defs[k] != nil {
				switch info.TypeOf(n.X).Underlying().(type) {
				case *types.Slice, *types.Array, *types.Pointer, *types.Basic:
					own[info.Defs[k]] = true
				}
			}
		case *ast.ForStmt:
			if as, ok := n.Init.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == 1 {
				if inc, ok := n.Post.(*ast.IncDecStmt); ok && inc.Tok == token.INC {
					if k, ok := as.Lhs[0].(*ast.Ident); ok && info.Defs[k] != nil {
						own[info.Defs[k]] = true
					}
				}
			}
		}
	}
}

// locked reports whether a mutex is held at pos, in the body of lit or of a
// function literal inside it that encloses pos: held for Lock, rheld for
// RLock only. It reads the calls in source order: a Lock (or TryLock) before
// pos counts, an Unlock counts only in a block that encloses pos (an
// unlock-and-return in a branch leaves the lock held after it), and deferred
// calls do not count.
func locked(stack []ast.Node, lit *ast.FuncLit, pos token.Pos) (held, rheld bool) {
	for i := len(stack) - 1; i >= 0; i-- {
		fl, ok := stack[i].(*ast.FuncLit)
		if !ok {
			continue
		}
		n, r := lockCount(fl.Body, pos)
		if n > 0 {
			return true, false
		}
		if r > 0 {
			rheld = true
		}
		if fl == lit {
			break
		}
	}
	return false, rheld
}

func lockCount(body *ast.BlockStmt, pos token.Pos) (n, r int) {
	var stack []ast.Node
	ast.Inspect(body, func(node ast.Node) bool {
		if node == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		switch node.(type) {
		case *ast.FuncLit, *ast.DeferStmt, *ast.GoStmt:
			return false
		}
		if call, ok := node.(*ast.CallExpr); ok && call.End() <= pos {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
				encloses := false
				for i := len(stack) - 1; i >= 0; i-- {
					switch b := stack[i].(type) {
					case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
						encloses = b.Pos() <= pos && pos < b.End()
					default:
						continue
					}
					break
				}
				switch sel.Sel.Name {
				case "Lock", "TryLock":
					n++
				case "RLock", "TryRLock":
					r++
				case "Unlock":
					if encloses && n > 0 {
						n--
					}
				case "RUnlock":
					if encloses && r > 0 {
						r--
					}
				}
			}
		}
		stack = append(stack, node)
		return true
	})
	return n, r
}

// ownVars returns the variables whose value differs in every call of lit:
// the index of ForEachIndex and ForEachPtr, the item of an operation over a
// Range, a block body's bounds and the loops over them, and locals defined
// from those.
func (c *checker) ownVars(cb *goparapi.Callback, lit *ast.FuncLit) map[types.Object]bool {
	info := c.pass.TypesInfo
	own := map[types.Object]bool{}
	var params []*ast.Ident
	for _, f := range lit.Type.Params.List {
		params = append(params, f.Names...)
	}
	if len(params) == 0 {
		return own
	}
	pname := ""
	if cb.Param != nil {
		pname = cb.Param.Name()
	}
	src := c.source(cb)
	switch {
	case cb.Op == "ForEachPtr":
		own[info.Defs[params[0]]] = true
	case cb.Op == "ForEachIndex":
		if !chainHas(info, src, "FlatMap") {
			own[info.Defs[params[0]]] = true
		}
	case pname == "body" && len(params) == 2:
		own[info.Defs[params[0]]] = true
		own[info.Defs[params[1]]] = true
	case pname == "f" || pname == "pred" || pname == "fold":
		if src != nil && rangeChain(info, src) {
			own[info.Defs[params[len(params)-1]]] = true
		}
	}
	// Loops over the own values, and locals defined from them.
	for changed := true; changed; {
		changed = false
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ForStmt:
				if as, ok := n.Init.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
					if c.owned(as.Rhs[0], own, lit) || c.mentions(as.Rhs[0], own) {
						if id, ok := as.Lhs[0].(*ast.Ident); ok && info.Defs[id] != nil && !own[info.Defs[id]] {
							own[info.Defs[id]] = true
							changed = true
						}
					}
				}
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE && len(n.Lhs) == 1 && len(n.Rhs) == 1 && c.owned(n.Rhs[0], own, lit) {
					if id, ok := n.Lhs[0].(*ast.Ident); ok && info.Defs[id] != nil && !own[info.Defs[id]] {
						own[info.Defs[id]] = true
						changed = true
					}
				}
			}
			return true
		})
	}
	return own
}

// source returns the iterator expression an operation runs on: the receiver
// of a method, or the first argument of a function such as par.Map.
func (c *checker) source(cb *goparapi.Callback) ast.Expr {
	if goparapi.RecvName(cb.Fn) != "" {
		if sel, ok := ast.Unparen(cb.Call.Fun).(*ast.SelectorExpr); ok {
			return sel.X
		}
		return nil
	}
	if len(cb.Call.Args) > 0 {
		return cb.Call.Args[0]
	}
	return nil
}

// settings are the methods that keep an iterator's items as they are.
var settings = map[string]bool{
	"WithPool": true, "WithContext": true, "WithBlockSize": true, "WithBuffer": true,
	"WithProgress": true, "WithTimeline": true, "Unordered": true, "Blocking": true, "Filter": true,
}

// rangeChain reports whether e is par.Range(...) followed by settings and
// filters only, so that each item is an index distinct from the others.
func rangeChain(info *types.Info, e ast.Expr) bool {
	for {
		e = ast.Unparen(e)
		if t := info.TypeOf(e); t != nil {
			if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Name() == "Ints" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == goparapi.ParPath {
				return true
			}
		}
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return false
		}
		fn := goparapi.Callee(info, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != goparapi.ParPath {
			return false
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || !settings[fn.Name()] || goparapi.RecvName(fn) == "" {
			return false
		}
		e = sel.X
	}
}

// chainHas reports whether the pipeline e is built with the par function
// name somewhere along it.
func chainHas(info *types.Info, e ast.Expr, name string) bool {
	for e != nil {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		fn := goparapi.Callee(info, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != goparapi.ParPath {
			return false
		}
		if fn.Name() == name {
			return true
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && goparapi.RecvName(fn) != "" {
			e = sel.X
		} else if len(call.Args) > 0 {
			e = call.Args[0]
		} else {
			e = nil
		}
	}
	return false
}

// owned reports whether index e picks a different element in every call:
// an own variable, moved by a value that is the same in every call (i+1,
// lo+j over a block), or scaled by one (2*i).
func (c *checker) owned(e ast.Expr, own map[types.Object]bool, lit *ast.FuncLit) bool {
	info := c.pass.TypesInfo
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return own[info.Uses[e]]
	case *ast.BinaryExpr:
		switch e.Op {
		case token.ADD:
			return c.owned(e.X, own, lit) && (c.invariant(e.Y, lit) || c.offset(e.Y, lit)) ||
				c.owned(e.Y, own, lit) && (c.invariant(e.X, lit) || c.offset(e.X, lit))
		case token.SUB:
			return c.owned(e.X, own, lit) && c.invariant(e.Y, lit)
		case token.MUL:
			return c.owned(e.X, own, lit) && c.invariant(e.Y, lit) || c.owned(e.Y, own, lit) && c.invariant(e.X, lit)
		}
	case *ast.CallExpr:
		if tv, ok := info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			return c.owned(e.Args[0], own, lit)
		}
	}
	return false
}

// offset reports whether e is the variable of a loop inside lit over the
// length of a block (for j := range hi - lo), which lo + j turns into an
// index of the block.
func (c *checker) offset(e ast.Expr, lit *ast.FuncLit) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	obj := c.pass.TypesInfo.Uses[id]
	found := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.RangeStmt:
			if k, ok := n.Key.(*ast.Ident); ok && c.pass.TypesInfo.Defs[k] == obj && obj != nil {
				if b, ok := ast.Unparen(n.X).(*ast.BinaryExpr); ok && b.Op == token.SUB {
					found = true
				}
			}
		case *ast.ForStmt:
			if as, ok := n.Init.(*ast.AssignStmt); ok && len(as.Lhs) == 1 {
				if k, ok := as.Lhs[0].(*ast.Ident); ok && c.pass.TypesInfo.Defs[k] == obj && obj != nil {
					if cond, ok := n.Cond.(*ast.BinaryExpr); ok {
						if b, ok := ast.Unparen(cond.Y).(*ast.BinaryExpr); ok && b.Op == token.SUB {
							found = true
						}
					}
				}
			}
		}
		return !found
	})
	return found
}

// invariant reports whether e has the same value in every call of lit: it
// uses no variable declared in lit and calls nothing but conversions, len
// and cap.
func (c *checker) invariant(e ast.Expr, lit *ast.FuncLit) bool {
	info := c.pass.TypesInfo
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if obj := info.Uses[n]; obj != nil {
				if _, isVar := obj.(*types.Var); isVar && lit.Pos() <= obj.Pos() && obj.Pos() < lit.End() {
					ok = false
				}
			}
		case *ast.CallExpr:
			if tv, isType := info.Types[n.Fun]; isType && tv.IsType() {
				return true
			}
			if id, isID := ast.Unparen(n.Fun).(*ast.Ident); isID {
				if b, isB := info.Uses[id].(*types.Builtin); isB && (b.Name() == "len" || b.Name() == "cap") {
					return true
				}
			}
			ok = false
		case *ast.FuncLit:
			ok = false
		}
		return ok
	})
	return ok
}

// mentions reports whether e uses an own variable other than as an index
// into something else: counts[i%10] does, counts[data[i]] does not.
func (c *checker) mentions(e ast.Expr, own map[types.Object]bool) bool {
	found := false
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if own[c.pass.TypesInfo.Uses[n]] {
				found = true
			}
		case *ast.IndexExpr:
			ast.Inspect(n.X, visit)
			return false
		}
		return !found
	}
	ast.Inspect(e, visit)
	return found
}

func (c *checker) report(stmt ast.Node, lhs ast.Expr, v *types.Var, what, method string, cb *goparapi.Callback, lit *ast.FuncLit, rheld bool) {
	name := c.text(lhs)
	subject := fmt.Sprintf("%s is written", name)
	advice := ""
	isAppend := false
	if as, ok := stmt.(*ast.AssignStmt); ok && len(as.Rhs) == len(as.Lhs) {
		for i, l := range as.Lhs {
			if l == lhs && isAppendOf(c.pass.TypesInfo, as.Rhs[i], lhs) {
				isAppend = true
			}
		}
	}
	tok := token.ILLEGAL
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		tok = s.Tok
	case *ast.IncDecStmt:
		tok = s.Tok
	}
	switch {
	case what == "unsafeType":
		subject = fmt.Sprintf("%s (a %s, not safe for concurrent use) is changed", name, method)
		advice = "give each goroutine its own with ForEachInit or MapInit, or guard it with a sync.Mutex"
	case what == "map":
		subject = fmt.Sprintf("map %s is written", rootText(c, lhs))
		advice = "build a map per run with par.Fold and merge them, or guard the map with a sync.Mutex"
	case what == "clear":
		subject = fmt.Sprintf("%s is cleared", name)
		advice = "guard it with a sync.Mutex"
	case what == "sameElem":
		subject = fmt.Sprintf("%s, the same element in every call, is written", name)
		advice = "write the call's own element (the index of ForEachIndex or ForEachPtr), or guard it with a sync.Mutex"
	case what == "histogram":
		subject = fmt.Sprintf("%s is updated, and two calls may pick the same element,", name)
		advice = "count with par.Fold (a table per run, merged) or with sync/atomic adds"
	case isAppend:
		subject = fmt.Sprintf("%s is appended to", name)
		advice = "collect the items with Collect, par.Map(...).Collect() or par.FilterMap, which keep source order"
	case what == "field":
		subject = fmt.Sprintf("%s is written", name)
		advice = "guard it with a sync.Mutex, use a sync/atomic type, or compute the value with Reduce or par.Fold"
	case tok == token.INC || tok == token.DEC:
		subject = fmt.Sprintf("%s is updated", name)
		advice = "count with Filter(...).Count(), or use an atomic.Int64"
	case tok == token.ADD_ASSIGN || tok == token.SUB_ASSIGN:
		subject = fmt.Sprintf("%s is updated", name)
		if isNumber(v.Type()) {
			advice = "compute it with par.Sum or Reduce, or use a sync/atomic type"
		} else {
			advice = "compute it with Reduce, or guard it with a sync.Mutex"
		}
	case tok != token.ASSIGN && tok != token.ILLEGAL:
		subject = fmt.Sprintf("%s is updated", name)
		advice = "compute it with Reduce, or guard it with a sync.Mutex"
	case isBool(v.Type()):
		advice = "use Any, Every or Find, which stop early, or an atomic.Bool"
	case isError(v.Type()):
		advice = "return the error from TryForEach (or ForEachErr for every error)"
	default:
		advice = "compute it with Reduce, Find, par.Min or par.Max, or guard it with a sync.Mutex"
	}
	var msg string
	switch cb.Kind {
	case goparapi.Sibling:
		msg = fmt.Sprintf("data race: %s in one function of %s and used in another, which may run at the same time; give each function its own variable and combine them after %s returns", subject, cb.Op, cb.Op)
	case goparapi.Spawned:
		msg = fmt.Sprintf("data race: %s by tasks started in a loop with %s, which run at the same time; %s", subject, cb.Op, advice)
	default:
		msg = fmt.Sprintf("data race: %s by concurrent calls of the %s callback; %s", subject, cb.Op, advice)
	}
	if rheld {
		msg = fmt.Sprintf("data race: %s while only a read lock (RLock) is held, which other calls hold at the same time; take the write lock (Lock)", subject)
	}
	d := analysis.Diagnostic{Pos: stmt.Pos(), End: stmt.End(), Message: msg}
	if cb.Kind == goparapi.Many && !rheld {
		if fix := c.fix(cb, lit); fix != nil {
			if err := goparapi.CheckFix(c.pass, goparapi.FileOf(c.pass, lit.Pos()), *fix); err != nil {
				d.Message += "; no fix: the rewrite would not compile: " + goparapi.ErrorText(c.pass.Fset, err)
			} else {
				d.SuggestedFixes = []analysis.SuggestedFix{*fix}
			}
		}
	}
	c.pass.Report(d)
}

func rootText(c *checker, e ast.Expr) string {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.IndexExpr:
			e = x.X
			continue
		}
		return c.text(e)
	}
}

// isAppendOf reports whether rhs is append(lhs, ...).
func isAppendOf(info *types.Info, rhs, lhs ast.Expr) bool {
	call, ok := ast.Unparen(rhs).(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	if b, ok := info.Uses[id].(*types.Builtin); !ok || b.Name() != "append" {
		return false
	}
	return types.ExprString(call.Args[0]) == types.ExprString(lhs)
}

func isNumber(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsNumeric != 0
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// text returns the source of e, shortened to one line.
func (c *checker) text(e ast.Expr) string {
	var buf bytes.Buffer
	if err := format.Node(&buf, c.pass.Fset, e); err != nil {
		return types.ExprString(e)
	}
	s := buf.String()
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		s = s[:i] + "..."
	}
	return s
}
