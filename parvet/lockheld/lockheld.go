// Package lockheld defines an analyzer that reports a mutex held across a
// gopar operation whose callbacks lock it again.
//
// # Analyzer lockheld
//
// lockheld: report a mutex held across a gopar call whose callbacks lock it
//
// A sync.Mutex is not reentrant: a callback that locks a mutex its caller
// holds waits for the caller to unlock it, and the caller waits for the
// callback's operation to return. A plain loop over the same callback
// deadlocks too, on its first item; a parallel one hangs the same way, with
// every goroutine of the operation blocked, which reads as a bug in the
// library rather than in the lock. The analyzer reports
//
//	c.mu.Lock()
//	defer c.mu.Unlock()
//	par.Slice(keys).ForEach(func(k string) { c.put(k) }) // put locks c.mu
//
// where the mutex (a variable, a field path such as c.mu, or a struct that
// embeds sync.Mutex) is locked before the call in the same function, with
// no Unlock between, and a callback of the call (a function literal, a
// method value such as c.put, or a function of the package) locks the
// same mutex: itself, or in a function or method of the package that it
// calls, with the receiver and the arguments standing for what the caller
// passes. A read lock held across callbacks that take the read lock is not
// reported (it deadlocks only once a writer waits).
//
// It follows the function literals, functions and methods of the package
// being checked, not calls through interfaces or func values, nor into
// other packages.
package lockheld

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gopar-dev/gopar/parvet/internal/goparapi"
)

// Analyzer reports a mutex held across a gopar call whose callbacks lock it.
var Analyzer = &analysis.Analyzer{
	Name: "lockheld",
	Doc:  "report a mutex held across a gopar call whose callbacks lock it\n\nA sync.Mutex is not reentrant: a callback that locks the mutex its caller holds across the gopar operation waits for the caller, which waits for the operation. lockheld reports a Lock before a gopar call, with no Unlock between, whose callback (a literal, a method value, a function of the package) locks the same mutex, itself or in a function or method of the package that it calls.",
	URL:  "https://pkg.go.dev/github.com/gopar-dev/gopar/parvet/lockheld",
	Run:  run,
}

// A mutex is named by the variable it hangs from and the fields from there:
// c.mu is (c, ".mu"), a package-level mu is (mu, ""), a struct embedding
// sync.Mutex locked as c.Lock() is (c, ".Mutex").
type mutex struct {
	root types.Object
	path string
}

// held is a mutex locked, and whether for writing.
type held struct {
	write bool
	at    token.Pos
	name  string // as the code writes it
}

type pass struct {
	*analysis.Pass
	funcs map[*types.Func]*ast.FuncDecl
}

func run(p *analysis.Pass) (any, error) {
	if goparapi.IsGopar(p.Pkg) {
		return nil, nil
	}
	ps := &pass{p, map[*types.Func]*ast.FuncDecl{}}
	for _, f := range p.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					ps.funcs[fn] = fd
				}
			}
		}
	}
	for _, f := range p.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Body != nil {
					ps.block(n.Body.List, map[mutex]held{})
				}
			case *ast.FuncLit:
				ps.block(n.Body.List, map[mutex]held{})
			}
			return true
		})
	}
	return nil, nil
}

// block walks a statement list with the mutexes held on entry.
func (p *pass) block(list []ast.Stmt, in map[mutex]held) {
	locks := make(map[mutex]held, len(in))
	for k, v := range in {
		locks[k] = v
	}
	for _, st := range list {
		if m, op, name, ok := p.lockCall(st); ok {
			switch op {
			case "Lock", "RLock":
				locks[m] = held{write: op == "Lock", at: st.Pos(), name: name}
			case "Unlock", "RUnlock":
				delete(locks, m)
			}
			continue
		}
		if len(locks) > 0 {
			p.calls(st, locks)
		}
		// Nested blocks start with what is held here.
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false // a function of its own, walked from run
			case *ast.BlockStmt:
				p.block(n.List, locks)
				return false
			case *ast.CaseClause:
				p.block(n.Body, locks)
				return false
			case *ast.CommClause:
				p.block(n.Body, locks)
				return false
			}
			return true
		})
	}
}

// lockCall reports whether st is m.Lock(), m.Unlock(), m.RLock() or
// m.RUnlock() on a sync.Mutex or sync.RWMutex. A deferred unlock does not
// count: the mutex stays held to the end of the function.
func (p *pass) lockCall(st ast.Stmt) (mutex, string, string, bool) {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return mutex{}, "", "", false
	}
	call, ok := ast.Unparen(es.X).(*ast.CallExpr)
	if !ok {
		return mutex{}, "", "", false
	}
	m, op, ok := p.mutexOf(call, nil)
	if !ok {
		return mutex{}, "", "", false
	}
	return m, op, types.ExprString(call.Fun.(*ast.SelectorExpr).X), true
}

// mutexOf returns the mutex that call locks or unlocks and the method, with
// the variables of subst standing for the caller's mutexes.
func (p *pass) mutexOf(call *ast.CallExpr, subst map[types.Object]mutex) (mutex, string, bool) {
	fn := goparapi.Callee(p.TypesInfo, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "sync" {
		return mutex{}, "", false
	}
	if r := goparapi.RecvName(fn); r != "Mutex" && r != "RWMutex" {
		return mutex{}, "", false
	}
	switch fn.Name() {
	case "Lock", "Unlock", "RLock", "RUnlock":
	default:
		return mutex{}, "", false
	}
	sel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	m, ok := p.pathOf(sel.X, subst)
	if !ok {
		return mutex{}, "", false
	}
	// A promoted method: the embedded fields on the way.
	if s := p.TypesInfo.Selections[sel]; s != nil && len(s.Index()) > 1 {
		t := s.Recv()
		for _, i := range s.Index()[:len(s.Index())-1] {
			st := structOf(t)
			if st == nil {
				return mutex{}, "", false
			}
			f := st.Field(i)
			m.path += "." + f.Name()
			t = f.Type()
		}
	}
	return m, fn.Name(), true
}

func structOf(t types.Type) *types.Struct {
	if ptr, ok := t.Underlying().(*types.Pointer); ok {
		t = ptr.Elem()
	}
	st, _ := t.Underlying().(*types.Struct)
	return st
}

// pathOf returns the variable and field path that e names: x, x.f.g, *x,
// &x.f; the variables of subst stand for the caller's.
func (p *pass) pathOf(e ast.Expr, subst map[types.Object]mutex) (mutex, bool) {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		o := p.TypesInfo.ObjectOf(e)
		if _, ok := o.(*types.Var); !ok {
			return mutex{}, false
		}
		if m, ok := subst[o]; ok {
			return m, true
		}
		return mutex{root: o}, true
	case *ast.SelectorExpr:
		s := p.TypesInfo.Selections[e]
		if s == nil || s.Kind() != types.FieldVal {
			if o, ok := p.TypesInfo.Uses[e.Sel].(*types.Var); ok && s == nil {
				return mutex{root: o}, true // a package's variable: pkg.mu
			}
			return mutex{}, false
		}
		m, ok := p.pathOf(e.X, subst)
		if !ok {
			return mutex{}, false
		}
		// Promoted fields on the way.
		t := s.Recv()
		for _, i := range s.Index()[:len(s.Index())-1] {
			st := structOf(t)
			if st == nil {
				return mutex{}, false
			}
			m.path += "." + st.Field(i).Name()
			t = st.Field(i).Type()
		}
		m.path += "." + e.Sel.Name
		return m, true
	case *ast.StarExpr:
		return p.pathOf(e.X, subst)
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return p.pathOf(e.X, subst)
		}
	}
	return mutex{}, false
}

// calls reports the gopar calls in st whose callbacks lock a mutex of
// locks.
func (p *pass) calls(st ast.Stmt, locks map[mutex]held) {
	ast.Inspect(st, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit, *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
			return false // callbacks are checked below, nested blocks by block
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := goparapi.Callee(p.TypesInfo, call)
		if fn == nil || !goparapi.IsGopar(fn.Pkg()) {
			return true
		}
		sig := fn.Type().(*types.Signature)
		for i, arg := range call.Args {
			pi := i
			if sig.Variadic() && pi >= sig.Params().Len()-1 {
				pi = sig.Params().Len() - 1
			}
			if k := goparapi.KindOf(fn, pi); k != goparapi.Many && k != goparapi.Sibling {
				continue
			}
			if m, where, ok := p.callbackLocks(arg, locks); ok {
				h := locks[m]
				p.Reportf(call.Pos(), "deadlock: %s is locked (line %d) across this %s, and its callback locks it again%s: a sync mutex is not reentrant, so the callback waits for the caller and the caller for the callback; unlock before the call, or give the callback a form that expects the lock held",
					h.name, p.Fset.Position(h.at).Line, fn.Name(), where)
				return false
			}
		}
		return true
	})
}

// callbackLocks reports whether the callback arg locks a mutex of locks
// (for writing, or while it is held for writing), and where: the functions
// on the way, as a clause for the report.
func (p *pass) callbackLocks(arg ast.Expr, locks map[mutex]held) (mutex, string, bool) {
	seen := map[*types.Func]bool{}
	var m mutex
	var chain []string
	ok := false
	switch a := ast.Unparen(arg).(type) {
	case *ast.FuncLit:
		m, chain, ok = p.bodyLocks(a.Body, nil, locks, seen, 0)
	case *ast.SelectorExpr, *ast.Ident:
		// A method value (c.put) or a function of the package.
		if fn, isFunc := p.TypesInfo.Uses[selName(a)].(*types.Func); isFunc {
			m, chain, ok = p.funcLocks(fn, a, nil, nil, locks, seen, 0)
		}
	}
	if !ok {
		return mutex{}, "", false
	}
	where := ""
	if len(chain) > 0 {
		where = " (in " + strings.Join(chain, ", called from ") + ")"
	}
	return m, where, true
}

func selName(e ast.Expr) *ast.Ident {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return e.Sel
	case *ast.Ident:
		return e
	}
	return nil
}

// maxDepth bounds how deep the analyzer follows calls from a callback.
const maxDepth = 4

// bodyLocks reports whether body locks a mutex of locks, itself or in a
// function of the package that it calls, and the functions on the way,
// innermost first.
func (p *pass) bodyLocks(body *ast.BlockStmt, subst map[types.Object]mutex, locks map[mutex]held, seen map[*types.Func]bool, depth int) (mutex, []string, bool) {
	var found mutex
	var chain []string
	ok := false
	ast.Inspect(body, func(n ast.Node) bool {
		if ok {
			return false
		}
		switch n := n.(type) {
		case *ast.GoStmt:
			return false // another goroutine: the callback does not wait for it
		case *ast.CallExpr:
			if m, op, isLock := p.mutexOf(n, subst); isLock {
				if h, held := locks[m]; held && (op == "Lock" || op == "RLock" && h.write) {
					found, ok = m, true
				}
				return false
			}
			fn := goparapi.Callee(p.TypesInfo, n)
			if fn == nil || depth >= maxDepth {
				return true
			}
			if m, c, l := p.funcLocks(fn, n.Fun, n.Args, subst, locks, seen, depth+1); l {
				found, chain, ok = m, c, true
				return false
			}
		}
		return true
	})
	return found, chain, ok
}

// funcLocks reports whether fn, a function or method of the package called
// through fun with args, locks a mutex of locks: its receiver and
// parameters stand for what the caller passes.
func (p *pass) funcLocks(fn *types.Func, fun ast.Expr, args []ast.Expr, subst map[types.Object]mutex, locks map[mutex]held, seen map[*types.Func]bool, depth int) (mutex, []string, bool) {
	fd := p.funcs[fn.Origin()]
	if fd == nil || seen[fn.Origin()] {
		return mutex{}, nil, false
	}
	seen[fn.Origin()] = true
	inner := map[types.Object]mutex{}
	if fd.Recv != nil && len(fd.Recv.List) == 1 && len(fd.Recv.List[0].Names) == 1 {
		if sel, ok := ast.Unparen(fun).(*ast.SelectorExpr); ok {
			if m, ok := p.pathOf(sel.X, subst); ok {
				inner[p.TypesInfo.Defs[fd.Recv.List[0].Names[0]]] = m
			}
		}
	}
	k := 0
	for _, fld := range fd.Type.Params.List {
		for _, name := range fld.Names {
			if k < len(args) {
				if m, ok := p.pathOf(args[k], subst); ok {
					inner[p.TypesInfo.Defs[name]] = m
				}
			}
			k++
		}
	}
	m, chain, ok := p.bodyLocks(fd.Body, inner, locks, seen, depth)
	if !ok {
		return mutex{}, nil, false
	}
	return m, append(chain, fn.Name()), true
}
