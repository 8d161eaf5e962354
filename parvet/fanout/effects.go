package fanout

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/gopar-dev/gopar/parvet/internal/goparapi"
)

// effects is what a call of one function does, as far as moving it from
// the loop into a callback goes: whether it only reads (readOnly), and the
// fields and package variables it reads and writes, its callees' included.
type effects struct {
	readOnly bool
	reads    map[types.Object]bool
	writes   map[types.Object]bool
	signals  map[types.Object]bool // the channels it sends on or closes (chanSource)
	busy     bool                  // being worked out: a call of it is recursive
	// derefs: the types it assigns through a pointer (*p = v), which may
	// change any field of any value of that type.
	derefs []types.Type
}

// derefWrites reports whether e assigns through a pointer to a value of
// type t.
func (e *effects) derefWrites(t types.Type) bool {
	return slices.ContainsFunc(e.derefs, func(d types.Type) bool { return types.Identical(d, t) })
}

// addDeref records an assignment through a pointer to a value of type t.
func (e *effects) addDeref(t types.Type) {
	if t != nil && !e.derefWrites(t) {
		e.derefs = append(e.derefs, t)
	}
}

// effectsOf returns fn's effects. A function of the package is read-only
// where its body assigns only its own variables (or fields and array items
// of its own struct and array values), does not send, receive, select,
// start a goroutine, close, copy, delete or clear, and calls only
// read-only functions (pureCall). Its reads and writes name the fields and
// package variables it reads and assigns (the written field of x.f = v,
// xs[i].f = v, and the slice or map field of x.xs[i] = v), its callees'
// included. A function that calls itself, directly or through others, is
// not read-only. A function of another package is read-only where pureCall
// says so; its reads and writes are unknown, and left out.
func (p *pass) effectsOf(fn *types.Func) *effects {
	fn = fn.Origin()
	if e, ok := p.effects[fn]; ok {
		return e
	}
	fd := p.funcs[fn]
	e := &effects{readOnly: fd != nil || pureCall(fn), reads: map[types.Object]bool{}, writes: map[types.Object]bool{}, signals: map[types.Object]bool{}, busy: true}
	p.effects[fn] = e
	if fd != nil {
		p.effectsIn(fd.Body, fd, e)
		p.signalsIn(fd.Body, fd.Body, e.signals)
	}
	e.busy = false
	return e
}

// effectsIn adds what body, part of fd, does to e.
func (p *pass) effectsIn(body ast.Node, fd *ast.FuncDecl, e *effects) {
	own := func(v *types.Var) bool { return !v.IsField() && fd.Pos() <= v.Pos() && v.Pos() < fd.End() }
	write := func(lhs ast.Expr) {
		if !p.ownPath(lhs, own) {
			e.readOnly = false
		}
		if _, ok := ast.Unparen(lhs).(*ast.StarExpr); ok {
			e.addDeref(p.TypesInfo.TypeOf(lhs))
		}
		if obj := p.written(lhs); obj != nil && (obj.(*types.Var).IsField() || !own(obj.(*types.Var))) {
			e.writes[obj] = true
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					write(l)
				}
			}
		case *ast.IncDecStmt:
			write(n.X)
		case *ast.SendStmt, *ast.GoStmt, *ast.SelectStmt:
			e.readOnly = false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				e.readOnly = false
			}
		case *ast.RangeStmt:
			switch p.TypesInfo.TypeOf(n.X).Underlying().(type) {
			case *types.Chan, *types.Signature:
				e.readOnly = false
			}
		case *ast.Ident:
			if v, ok := p.TypesInfo.Uses[n].(*types.Var); ok && !v.IsField() && shared(v) {
				e.reads[v] = true
			}
		case *ast.SelectorExpr:
			if sel := p.TypesInfo.Selections[n]; sel != nil && sel.Kind() == types.FieldVal {
				e.reads[sel.Obj()] = true
			}
		case *ast.CallExpr:
			p.callEffects(n, e)
		}
		return true
	})
}

// callEffects adds what call does, beyond its operands, to e.
func (p *pass) callEffects(call *ast.CallExpr, e *effects) {
	if tv, ok := p.TypesInfo.Types[call.Fun]; ok && tv.IsType() {
		return // a conversion
	}
	if b, ok := p.TypesInfo.Uses[identOf(call.Fun)].(*types.Builtin); ok {
		switch b.Name() {
		case "len", "cap", "min", "max", "append", "make", "new", "panic", "complex", "real", "imag":
		default:
			e.readOnly = false // close, copy, delete, clear, print
		}
		return
	}
	fn := goparapi.Callee(p.TypesInfo, call)
	if fn == nil || isInterfaceMethod(fn) {
		e.readOnly = false // a func value or an interface's method: any code at all
		return
	}
	sub := p.effectsOf(fn)
	// A recursive call: what the callee does is not known yet, so the
	// caller is not read-only (its reads and writes are still those known).
	e.readOnly = e.readOnly && sub.readOnly && !sub.busy
	for o := range sub.reads {
		e.reads[o] = true
	}
	for o := range sub.writes {
		e.writes[o] = true
	}
	for o := range sub.signals {
		e.signals[o] = true
	}
	for _, t := range sub.derefs {
		e.addDeref(t)
	}
}

// signalsIn adds to signals the channels that body, part of scope, sends
// on or closes (close(ch), a closer, ch <- v), where chanSource names them.
func (p *pass) signalsIn(body ast.Node, scope *ast.BlockStmt, signals map[types.Object]bool) {
	ast.Inspect(body, func(n ast.Node) bool {
		var ch ast.Expr
		switch n := n.(type) {
		case *ast.SendStmt:
			ch = n.Chan
		case *ast.CallExpr:
			if b, ok := p.TypesInfo.Uses[identOf(n.Fun)].(*types.Builtin); ok && b.Name() == "close" && len(n.Args) == 1 || p.closer(n) {
				ch = n.Args[0]
			}
		}
		if ch != nil {
			if src := p.chanSource(ch, scope); src != nil {
				signals[src] = true
			}
		}
		return true
	})
}

// shared reports whether v outlives any one call: a field or a package
// variable, which any function may reach, where a local variable is its
// function's own.
func shared(v *types.Var) bool {
	return v.IsField() || v.Parent() == v.Pkg().Scope()
}

// isInterfaceMethod reports whether fn is an interface's method.
func isInterfaceMethod(fn *types.Func) bool {
	recv := fn.Type().(*types.Signature).Recv()
	return recv != nil && types.IsInterface(recv.Type())
}

// readOnlyCall reports whether call, in f's loop, may move into the
// callback: it calls a function that only reads (effectsOf), none of whose
// reads the loop, its goroutines and the package's functions they call
// included, writes.
func (p *pass) readOnlyCall(call *ast.CallExpr, f *fan) bool {
	fn := goparapi.Callee(p.TypesInfo, call)
	if fn == nil || isInterfaceMethod(fn) {
		return false
	}
	e := p.effectsOf(fn)
	if !e.readOnly {
		return false
	}
	written := p.calledEffects(f.loop).writes
	ast.Inspect(f.loop, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs = n.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{n.X}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				lhs = []ast.Expr{n.X}
			}
		}
		for _, l := range lhs {
			if o := p.written(l); o != nil {
				written[o] = true
			}
		}
		return true
	})
	for o := range e.reads {
		if written[o] {
			return false
		}
	}
	return true
}

// ownPath reports whether lhs is a variable that own accepts, or a field
// or an array item of one held by value (not through a pointer, a slice or
// a map): assigning it changes nothing that the function's caller sees.
func (p *pass) ownPath(lhs ast.Expr, own func(*types.Var) bool) bool {
	switch x := ast.Unparen(lhs).(type) {
	case *ast.Ident:
		v, ok := p.TypesInfo.Uses[x].(*types.Var)
		return x.Name == "_" || ok && own(v)
	case *ast.SelectorExpr:
		if _, ptr := p.TypesInfo.TypeOf(x.X).Underlying().(*types.Pointer); ptr {
			return false
		}
		return p.ownPath(x.X, own)
	case *ast.IndexExpr:
		if _, arr := p.TypesInfo.TypeOf(x.X).Underlying().(*types.Array); !arr {
			return false
		}
		return p.ownPath(x.X, own)
	}
	return false
}

// written returns the variable that assigning lhs writes: the field of
// x.f, the slice, map or array variable or field of xs[i] (or xs[i].f's
// field f), a variable; nil for a write through a pointer (*p = v).
func (p *pass) written(lhs ast.Expr) types.Object {
	switch x := ast.Unparen(lhs).(type) {
	case *ast.Ident:
		if v, ok := p.TypesInfo.Uses[x].(*types.Var); ok {
			return v
		}
	case *ast.SelectorExpr:
		if sel := p.TypesInfo.Selections[x]; sel != nil && sel.Kind() == types.FieldVal {
			return sel.Obj()
		}
		if v, ok := p.TypesInfo.Uses[x.Sel].(*types.Var); ok {
			return v // pkg.Var
		}
	case *ast.IndexExpr:
		return p.written(x.X)
	}
	return nil
}

// calledEffects returns what the functions of the package that n calls
// (n is a loop, its goroutines included) may read, write and signal, and
// the types that they or n assign through a pointer. It is worked out once
// per node; callers do not change it.
func (p *pass) calledEffects(n ast.Node) *effects {
	if e, ok := p.called[n]; ok {
		return e
	}
	e := &effects{readOnly: true, reads: map[types.Object]bool{}, writes: map[types.Object]bool{}, signals: map[types.Object]bool{}}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			p.callEffects(n, e)
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if _, ok := ast.Unparen(l).(*ast.StarExpr); ok && n.Tok != token.DEFINE {
					e.addDeref(p.TypesInfo.TypeOf(l)) // *p = v in the loop itself
				}
			}
		}
		return true
	})
	p.called[n] = e
	return e
}

// pureCall reports whether fn, of another package, only reads what it is
// given: a function of strings, strconv, bytes, unicode, unicode/utf8,
// math, math/bits, path, or filepath's path functions (none that takes a
// function), errors.Is, errors.New,
// fmt's Sprint family and Errorf, time.Now, Since and Until, a value
// method of time.Time or time.Duration, a mutex's Lock and Unlock (and
// RLock and RUnlock) around reads, an atomic Load, or a String or Error
// method (fmt calls those at any time on any goroutine, so they only read).
func pureCall(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	if (fn.Name() == "String" || fn.Name() == "Error") && sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.String]) {
		return true
	}
	if fn.Pkg() == nil {
		return false
	}
	for i := range sig.Params().Len() {
		if _, ok := sig.Params().At(i).Type().Underlying().(*types.Signature); ok {
			return false // strings.Map: it calls what it is given
		}
	}
	path, name := fn.Pkg().Path(), fn.Name()
	if recv := sig.Recv(); recv != nil {
		_, ptr := recv.Type().(*types.Pointer)
		switch path {
		case "time":
			return !ptr
		case "sync":
			return name == "Lock" || name == "Unlock" || name == "RLock" || name == "RUnlock"
		case "sync/atomic":
			return name == "Load"
		}
		return false
	}
	switch path {
	case "strings", "strconv", "bytes", "unicode", "unicode/utf8", "math", "math/bits", "path":
		return true
	case "path/filepath":
		return slices.Contains([]string{"Join", "Base", "Dir", "Ext", "Clean", "IsAbs", "Rel", "Split", "ToSlash", "FromSlash"}, name)
	case "errors":
		return name == "Is" || name == "New"
	case "fmt":
		return name == "Sprint" || name == "Sprintf" || name == "Sprintln" || name == "Errorf"
	case "time":
		return name == "Now" || name == "Since" || name == "Until"
	case "sync/atomic":
		return len(name) > 4 && name[:4] == "Load"
	}
	return false
}
