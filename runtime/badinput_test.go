package runtime

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/latch"
)

// mustRefuse runs f on a goroutine of its own and fails unless f panics,
// within 10 s, with a message that contains want: bad input at an entry
// point is refused at the call, never by a hang.
func mustRefuse(t *testing.T, want string, f func()) {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		returned := false
		defer func() {
			if !returned {
				got <- fmt.Sprint(recover())
			}
		}()
		f()
		returned = true
		got <- "(returned without a panic)"
	}()
	select {
	case msg := <-got:
		if !strings.Contains(msg, want) {
			t.Errorf("got %q, want a panic that says %q", msg, want)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("%s: no panic after 10 s (it hangs)", want)
	}
}

// TestPromoteNilPanics: Promote(nil) must refuse it at the call, and
// publish nothing: a nil func on the board would be a nil call on its
// taker, and an owner whose Promotion held no func could end another's.
func TestPromoteNilPanics(t *testing.T) {
	p := newPool(t, 2)
	busyWorkers(t, p) // nobody takes anything but the test
	var pr1 promotion
	mustRefuse(t, "Promote was given a nil function", func() { pr1 = promote(p, nil) })
	if pr1.Published() {
		t.Fatal("Promote(nil) published")
	}
	for i := range p.board.slots {
		if e := p.board.slots[i].state.Load(); e&kindBits != kindFree {
			t.Fatalf("after Promote(nil) slot %d's word is %#x, want a free one", i, e)
		}
	}
}

// TestJoinLazyNilPanics: JoinLazy(a, nil) published the nil b as
// Promote(nil) did, with the same hang; JoinLazy(nil, b) ran b and then
// re-raised the nil call's panic as a *Panic. Both are refused at the call.
func TestJoinLazyNilPanics(t *testing.T) {
	p := newPool(t, 2)
	busyWorkers(t, p)
	var ran atomic.Int32
	mustRefuse(t, "Pool.JoinLazy was given a nil function", func() { p.JoinLazy(func() { ran.Add(1) }, nil) })
	mustRefuse(t, "Pool.JoinLazy was given a nil function", func() { p.JoinLazy(nil, func() { ran.Add(1) }) })
	if n := ran.Load(); n != 0 {
		t.Errorf("%d calls ran before the nil function was refused", n)
	}
}

// badInput lists, for every exported function and method of the package,
// how bad input is refused: each case must panic, at the call, with a
// message that names the entry point. TestBadInputCoversEveryEntryPoint
// checks that the list is complete.
func badInput(t *testing.T) map[string][]func() {
	p := newPool(t, 2)
	closed := newPool(t, 2)
	closed.Close()
	busy := newPool(t, 2)
	busyWorkers(t, busy) // nobody takes what is promoted there
	var nilPool *Pool
	inDo := func(f func(w *Worker)) { p.Do(f) }
	closeCases := []func(){func() { nilPool.Close() }}
	if curGWorks() { // Close tells that it is called from inside the pool
		closeCases = append(closeCases, func() { p.Do(func(*Worker) { p.Close() }) })
	}
	nop := func(*Worker) {}
	return map[string][]func(){
		"New":                  nil, // returns an error for a bad count (TestNewRejectsBadWorkerCounts)
		"Default":              nil, // no input
		"Pool.Workers":         {func() { nilPool.Workers() }},
		"Pool.Closed":          {func() { nilPool.Closed() }},
		"Pool.Close":           closeCases,
		"Pool.Do":              {func() { nilPool.Do(nop) }, func() { p.Do(nil) }, func() { closed.Do(nop) }},
		"Pool.Join":            {func() { nilPool.Join(nop, nop) }, func() { p.Join(nil, nop) }, func() { p.Join(nop, nil) }, func() { closed.Join(nop, nop) }},
		"Hungry":               {func() { hungry(nilPool) }},
		"Pool.JoinLazy":        {func() { nilPool.JoinLazy(func() {}, func() {}) }, func() { p.JoinLazy(nil, func() {}) }, func() { p.JoinLazy(func() {}, nil) }},
		"Pool.Go":              {func() { nilPool.Go(nop) }, func() { p.Go(nil) }, func() { closed.Go(nop) }},
		"Inject":               {func() { inject(nilPool, nop) }, func() { inject(p, nil) }},
		"Block":                {func() { block(p, nil) }}, // a nil Pool is the default one
		"Pool.Scope":           {func() { nilPool.Scope(func(Scope) {}) }, func() { p.Scope(nil) }, func() { closed.Scope(func(Scope) {}) }},
		"Pool.Stats":           {func() { nilPool.Stats() }},
		"Promote":              {func() { promote(nilPool, func() {}) }, func() { promote(p, nil) }},
		"Promotion.Published":  nil, // the zero Promotion is valid: not published
		"Promotion.Reclaim":    nil, // the zero Promotion is valid: true
		"Promotion.CheckEnded": nil, // the zero Promotion is valid: never pending
		"Promotion.Wait": {
			func() { promotion{}.Wait() },
			func() {
				pr := promote(busy, func() {})
				pr.Wait() // without a Reclaim that returned false
			},
		},
		"Worker.Pool":  nil, // a nil Worker is valid
		"Worker.Index": nil, // a nil Worker is valid
		"Worker.Join":  {func() { inDo(func(w *Worker) { w.Join(nil, nop) }) }, func() { inDo(func(w *Worker) { w.Join(nop, nil) }) }, func() { (*Worker)(nil).Join(nil, nop) }},
		"Offer":        {func() { inDo(func(w *Worker) { offer(w, nil) }) }, func() { offer((*Worker)(nil), nil) }},
		"Worker.Scope": {func() { inDo(func(w *Worker) { w.Scope(nil) }) }, func() { (*Worker)(nil).Scope(nil) }},
		"Enter":        {func() { enter(nil) }},
		"Leave":        nil, // a nil lease is none
		"Open": {
			func() { inDo(func(w *Worker) { open(w, 1, nil) }) },
			func() { open(nil, 1, nop) },
		},
		"Close": {func() {
			inDo(func(w *Worker) {
				sr := open(w, 0, nop)
				defer sr.abandon(w)
				sr.close(w, nil)
			})
		}},
		"Abandon": nil, // its callers pass Open's region
		"Wait":    {func() { inDo(func(w *Worker) { waitLatch(w, nil) }) }, func() { waitLatch((*Worker)(nil), new(latch.Latch)) }},
		"JoinFunc": {
			func() { inDo(func(w *Worker) { JoinFunc[int, int](w, nil, 1, 2) }) },
			func() { JoinFunc[int, int](nil, nil, 1, 2) },
		},
		"Scope.Spawn":    {func() { Scope{}.Spawn(func(Scope) {}) }, func() { p.Scope(func(s Scope) { s.Spawn(nil) }) }},
		"SpawnTask":      {func() { spawnTask(Scope{}, funcTask(func(Scope) {})) }, func() { p.Scope(func(s Scope) { spawnTask(s, nil) }) }},
		"Scope.Worker":   nil, // the zero Scope's is nil
		"Bound":          {func() { bound(Scope{}, nil) }, func() { p.Scope(func(s Scope) { bound(s, nil) }) }},
		"NewPanic":       nil, // any value
		"Panic.Error":    {func() { _ = (*Panic)(nil).Error() }},
		"Panic.Unwrap":   {func() { _ = (*Panic)(nil).Unwrap() }},
		"Panic.IsGoexit": nil, // nil is no Goexit
		"Catch":          {func() { catch(nil) }},
		"Unwinding":      nil, // any value
		"Raise":          nil, // nil does nothing
		"Stronger":       nil, // nil is no failure
		"CallAfter":      {func() { callAfter(nil, nil) }},
		"Record":         {func() { record(nil, goexitRecord) }},
	}
}

// closedCase is the index of each entry point's case on a closed pool,
// which panics with ErrClosed.
var closedCase = map[string]int{"Pool.Do": 2, "Pool.Join": 3, "Pool.Go": 2, "Pool.Scope": 2}

// TestBadInputRefused: every case of badInput panics at the call with a
// message that names its entry point, none hangs, and the pools stay usable.
func TestBadInputRefused(t *testing.T) {
	for name, cases := range badInput(t) {
		for i, f := range cases {
			t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) {
				want := "gopar: " + name + " "
				if j, ok := closedCase[name]; ok && j == i {
					// The value par and internal/pipe compare with.
					want = ErrClosed.Error()
				}
				mustRefuse(t, want, f)
			})
		}
	}
	p := newPool(t, 2)
	if got := fib(nil, 10); got != 55 {
		t.Fatalf("fib(10) = %d", got)
	}
	var got int
	p.Do(func(w *Worker) { got = fib(w, 15) })
	if got != 610 {
		t.Fatalf("fib(15) after the bad calls = %d", got)
	}
}

// TestBadInputCoversEveryEntryPoint: badInput names every entry point of
// the pool, and nothing else: the exported functions and methods of the
// package, and those of internal/plumb, through which internal/pipe and par
// reach its plumbing.
func TestBadInputCoversEveryEntryPoint(t *testing.T) {
	exported := append(entryPoints(t, "."), entryPoints(t, "../internal/plumb")...)
	cases := badInput(t)
	sort.Strings(exported)
	for _, name := range exported {
		if _, ok := cases[name]; !ok {
			t.Errorf("%s is exported but badInput does not say how it refuses bad input", name)
		}
		delete(cases, name)
	}
	for name := range cases {
		t.Errorf("badInput lists %s, which is not an exported function or method", name)
	}
}

// entryPoints returns the exported functions, methods and variables of the
// package in dir, as badInput names them.
func entryPoints(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if name, ok := funcName(d); ok {
					names = append(names, name)
				}
			case *ast.GenDecl:
				names = append(names, funcVars(d)...)
			}
		}
	}
	return names
}

// funcName is the name of an exported function, or of an exported method
// of an exported type (Type.Method).
func funcName(fn *ast.FuncDecl) (string, bool) {
	if !fn.Name.IsExported() {
		return "", false
	}
	if fn.Recv == nil {
		return fn.Name.Name, true
	}
	typ := fn.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	id, ok := typ.(*ast.Ident)
	if !ok || !id.IsExported() {
		return "", false
	}
	return id.Name + "." + fn.Name.Name, true
}

// funcVars are the exported variables that d declares as a function that
// runtime handed over (internal/plumb's link.X.(func...)).
func funcVars(d *ast.GenDecl) []string {
	var names []string
	if d.Tok != token.VAR {
		return nil
	}
	for _, spec := range d.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, id := range vs.Names {
			if i >= len(vs.Values) || !id.IsExported() {
				continue
			}
			if _, ok := vs.Values[i].(*ast.TypeAssertExpr); ok {
				names = append(names, id.Name)
			}
		}
	}
	return names
}
