package fanout

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"go/version"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/gopar-dev/gopar/parvet/internal/goparapi"
)

// rewrite is what a fix needs to know about one fan-out.
type rewrite struct {
	from, to     token.Pos     // the statements the par call replaces
	waitCall     *ast.CallExpr // errgroup: the g.Wait() call the par call replaces
	source       string        // par.Slice(xs), par.Range(0, n)
	params       string        // the callback's parameters, without ctx
	itemFirst    string        // a statement that the body starts with (x := xs[i])
	body         string        // the callback's body, braces included
	errs         bool          // the callback returns an error
	ctxName      string        // TryForEachContext's context parameter, if any
	parent       string        // errgroup.WithContext's parent
	limit        string        // the Blocking limit
	remove       []ast.Stmt    // declarations and setup that go away
	imports      []string      // what the fixed code uses
	ioish        bool          // the body looks like it blocks
	hasLimit     bool          // the fan-out had a limit of its own
	useIndexed   bool          // ForEachIndex
	keepFirst    bool          // errgroup without a context: ForEach, every item, the first error kept
	prelude      []string      // declarations of the loop body that the callback starts with (movable)
	std          []string      // standard packages the rewrite uses besides context (maps, sync)
	mapped       *mapping      // a pool joined by counted receives: Map and a range over Values
	ctxCheck     ast.Stmt      // the loop's check of errgroup's context before each start, which WithContext does (stopsOnCtx)
	task         string        // the group that runs the par call as a task of its own, where the group stays (groupTaskRewrite)
	indexed      *indexing     // minio's errgroup: the errors kept by index in a slice of the rewrite's
	keepsBetween bool          // declarations between the loop and the Wait stay: the edit ends at the loop's end
	// background names the channel that a goroutine running the par call
	// closes when it returns: the call takes the loop's place in that
	// goroutine, and a receive from the channel takes the Wait's
	// (waitCall), so that what the caller does in between runs beside the
	// work as before.
	background string
	// spawned: the par call runs in a goroutine of its own in the loop's
	// place, the goroutines' bodies, sends included, as its callback; the
	// receives after it stay (countedSpawned).
	spawned bool
	// before: statements that stay in a loop of their own, which runs
	// before the call (prepLoop).
	before string
	// blockingOnly: the callbacks wait on the caller (they send what it
	// receives), so only the Blocking form is offered, whose goroutines
	// are the operation's own, not the pool's workers.
	blockingOnly bool
	// redeclare holds declarations of remove that become another text: a
	// group that a later fan-out assigns afresh keeps its name (var g T).
	redeclare map[ast.Stmt]string
}

// fixes returns the two suggested fixes of f, or none and what stops
// them: a clause for the report, where the rewrite would not keep the
// program's meaning.
func (p *pass) fixes(f *fan) ([]analysis.SuggestedFix, string) {
	// errgroup workers whose Wait the rewrites below cannot move keep it
	// where it is as one task of the group (groupTaskRewrite).
	if f.shape == "workers" && p.isGroup(f.group) && !f.sel && f.under == nil &&
		(f.deferred || f.waitIn != "" || f.between != nil || f.waitGo) &&
		(f.named == "" || p.inlineClosure(f) || p.inlineFunc(f)) {
		if r, _ := p.groupTaskRewrite(f); r != nil {
			return p.fixesOf(f, r)
		}
	}
	if res := p.workerResource(f); res != "" {
		return nil, "each goroutine is a worker over a share of the items that keeps " + res + " for them and releases it at its end, which a callback per item would do per item (ForEachInit has no release)"
	}
	switch {
	case f.shape == "group" && p.indexedGroup(f) == nil:
		return nil, "the group is " + typeName(f.group.Type()) + ", whose Go and Wait the rewrite cannot carry over"
	case f.deferred:
		return nil, "the Wait is deferred: it runs when the function returns, after the statements that follow the loop"
	case f.waitIn != "":
		return nil, "the Wait runs inside " + f.waitIn + ", a closure, which the rewrite would have to change"
	case f.sel:
		return nil, "the workers select on other channels besides " + f.ch.Name() + " (a context's Done, a stop), which a par callback does not watch"
	case f.between != nil && !p.backgroundable(f):
		return nil, p.line(f.between, "the caller works between the loop and the Wait with variables the goroutines use")
	case f.waitGo && (f.shape != "waitgroup" || f.sel || f.under != nil || f.deferred || f.waitIn != "" || f.between != nil):
		return nil, "the Wait runs in a goroutine of its own, beside the caller"
	case f.under != nil && (f.shape == "workers" || f.shape == "counted"):
		return nil, p.line(f.under, "the goroutine starts only under an if")
	case f.named != "" && !p.inlineClosure(f) && !p.inlineFunc(f):
		return nil, "the goroutine runs " + f.named + ", a named function, whose body the rewrite would have to move"
	}
	var r *rewrite
	var why string
	if f.shape == "counted" && f.ch != nil {
		r, why = p.countedRewrite(f)
	} else if f.shape == "workers" {
		r, why = p.workersRewrite(f)
		if r == nil {
			if rc, whyc := p.chanRewrite(f); rc != nil {
				r = rc
			} else if rg, whyg := p.groupTaskRewrite(f); rg != nil {
				r = rg
			} else if whyg != "" && p.isGroup(f.group) {
				why = whyg
			} else if whyc != "" && why == "the producer is not one range loop over a slice that sends each item" {
				why = whyc
			}
		}
	} else {
		r, why = p.loopRewrite(f)
		if c := p.counterWorker(f); r != nil && c != nil {
			r, why = p.counterRewrite(f, c, r)
		}
	}
	if r == nil {
		return nil, why
	}
	return p.fixesOf(f, r)
}

// fixesOf returns the two suggested fixes of f that rewrite r describes,
// or none and what stops them.
func (p *pass) fixesOf(f *fan, r *rewrite) ([]analysis.SuggestedFix, string) {
	if f.label != nil && p.labelUsed(f.label) {
		return nil, "the loop's label is used by a goto"
	}
	parName, parEdits, ok := goparapi.AddImport(p.Pkg, p.file, goparapi.ParPath, r.from)
	if !ok {
		return nil, "the name par is taken in this file"
	}
	var importEdits []analysis.TextEdit
	importEdits = append(importEdits, parEdits...)
	ctxName := "context"
	if r.ctxName != "" {
		name, edits, ok := goparapi.AddImport(p.Pkg, p.file, "context", r.from)
		if !ok {
			return nil, "the name context is taken in this file"
		}
		ctxName = name
		importEdits = mergeImportEdits(importEdits, edits)
	}
	if r.keepFirst {
		r.std = append(r.std, "sync")
	}
	stdNames := map[string]string{}
	var added []string
	for _, path := range r.std {
		name, edits, ok := goparapi.AddImport(p.Pkg, p.file, path, r.from)
		if !ok {
			return nil, "the name " + path + " is taken in this file"
		}
		stdNames[path] = name
		if len(edits) > 0 {
			added = append(added, path)
		}
	}
	if len(added) > 0 {
		// At the top of the imports, apart from par's edit, which every
		// fix of the file shares.
		importEdits = append(importEdits, goparapi.ImportFirst(p.file, added...))
	}
	syncName := stdNames["sync"]
	if r.keepFirst {
		scope := p.Pkg.Scope().Innermost(r.from)
		for _, name := range []string{firstErrName, firstOnceName} {
			if scope == nil {
				break
			}
			if _, obj := scope.LookupParent(name, r.from); obj != nil {
				return nil, "the name " + name + ", which the rewrite keeps the first error in, is taken here"
			}
		}
	}
	source := strings.Replace(r.source, "par.", parName+".", 1)
	if name := stdNames["maps"]; name != "" && name != "maps" {
		source = strings.Replace(source, "maps.Keys(", name+".Keys(", 1)
	}
	build := func(blocking bool) analysis.SuggestedFix {
		expr := source
		if r.parent != "" {
			expr += ".WithContext(" + r.parent + ")"
		}
		if blocking {
			expr += ".Blocking(" + r.limit + ")"
		}
		params := r.params
		if r.ctxName != "" {
			params = r.ctxName + " " + ctxName + ".Context, " + params
		}
		fn := "func(" + params + ")"
		if r.errs {
			fn += " error"
		}
		body := r.body
		if first := strings.Join(append(nonEmpty(r.itemFirst), r.prelude...), "\n"); first != "" {
			rest := body[1:]
			if !strings.HasPrefix(strings.TrimLeft(rest, " \t"), "\n") {
				rest = "\n" + strings.TrimLeft(rest, " \t") // a body on one line
			}
			body = "{\n" + first + rest
		}
		op := "ForEach"
		switch {
		case r.errs && r.ctxName != "":
			op = "TryForEachContext"
		case r.errs:
			op = "TryForEach"
		case r.useIndexed:
			op = "ForEachIndex"
		}
		call := expr + "." + op + "(" + fn + " " + body + ")"
		if r.mapped != nil {
			call = r.mapped.text(p, parName, expr, params, strings.TrimSpace(body))
		}
		if r.spawned {
			call = "go func() {\n" + call + "\n}()"
		}
		if r.task != "" {
			if r.errs {
				call = r.task + ".Go(func() error {\nreturn " + call + "\n})"
			} else {
				call = r.task + ".Go(func() error {\n" + call + "\nreturn nil\n})"
			}
		}
		var edits []analysis.TextEdit
		if ix := r.indexed; ix != nil {
			// errs := make([]error, n), the call, then the Wait's
			// statement with errs in the Wait's place.
			text := call
			if ix.name != "" {
				define := " := "
				if ix.assigned {
					define = " = "
				}
				text = ix.name + define + "make([]error, " + p.src(ix.n) + ")\n" + call
			}
			if r.waitCall != nil {
				text += newlineUnless(r.keepsBetween) // the Wait's statement follows
				edits = append(edits, analysis.TextEdit{Pos: r.waitCall.Pos(), End: r.waitCall.End(), NewText: []byte(ix.name)})
			}
			edits = append(edits, analysis.TextEdit{Pos: r.from, End: r.to, NewText: []byte(text)})
		} else if r.background != "" {
			done := r.background
			edits = append(edits,
				analysis.TextEdit{Pos: r.from, End: r.to, NewText: []byte(done + " := make(chan struct{})\ngo func() {\n" + call + "\nclose(" + done + ")\n}()")},
				analysis.TextEdit{Pos: r.waitCall.Pos(), End: r.waitCall.End(), NewText: []byte("<-" + done)})
		} else if r.keepFirst {
			edits = append(edits, p.keepFirstEdits(r, expr, syncName, body)...)
		} else if r.waitCall != nil {
			loop := p.deleteLine(span{r.from, r.to})
			if r.before != "" {
				loop = analysis.TextEdit{Pos: r.from, End: r.to, NewText: []byte(strings.TrimSuffix(r.before, "\n"))}
			}
			edits = append(edits, loop,
				analysis.TextEdit{Pos: r.waitCall.Pos(), End: r.waitCall.End(), NewText: []byte(call)})
		} else {
			edits = append(edits, analysis.TextEdit{Pos: r.from, End: r.to, NewText: []byte(r.before + call)})
		}
		for _, st := range r.remove {
			if text, ok := r.redeclare[st]; ok {
				edits = append(edits, analysis.TextEdit{Pos: st.Pos(), End: st.End(), NewText: []byte(text)})
				continue
			}
			edits = append(edits, p.deleteLine(st))
		}
		edits = append(edits, importEdits...)
		msg := FixPool
		if blocking {
			msg = FixBlocking
		}
		return analysis.SuggestedFix{Message: msg, TextEdits: edits}
	}
	blocking, pool := build(true), build(false)
	if r.spawned || r.blockingOnly {
		// The callbacks block on their sends until the caller receives:
		// on goroutines of the operation's own, not the pool's workers.
		return p.compiling(blocking)
	}
	if r.limit == "" {
		return p.compiling(pool)
	}
	if r.hasLimit || r.ioish {
		return p.compiling(blocking, pool)
	}
	return p.compiling(pool, blocking)
}

// freshName returns a name for a variable of the rewrite's callback, base
// or base with a number, that means nothing where f's loop is and that f's
// goroutine does not use; "" if the first ten are all taken.
func (p *pass) freshName(base string, f *fan) string {
	return p.freeName(base, f.loop.Pos(), f.lit.Body)
}

// freeName returns base, or base with a number, that means nothing at pos
// and that the code in uses does not use either; "" if the first ten are
// all taken.
func (p *pass) freeName(base string, pos token.Pos, uses ast.Node) string {
	scope := p.Pkg.Scope().Innermost(pos)
	for i := 0; i < 10; i++ {
		name := base
		if i > 0 {
			name += strconv.Itoa(i + 1)
		}
		if scope != nil {
			if _, obj := scope.LookupParent(name, pos); obj != nil {
				continue
			}
		}
		used := false
		ast.Inspect(uses, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == name {
				used = true
			}
			return !used
		})
		if !used {
			return name
		}
	}
	return ""
}

// nonEmpty returns s as a slice of one, or none if s is empty.
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// movable reports whether st, a statement of f's loop body, is a
// declaration that the rewrite may move into the callback, where it runs
// at another time and on another goroutine, with the same result: it
// declares new variables (:=) that only the goroutine and the loop's later
// moved statements use (onlyMoved), from expressions that only read
// (constants, arithmetic other than division and shifts by a variable,
// comparisons, field reads, dereferences, type assertions, composite
// literals, items of slices, arrays and maps and their addresses, len,
// cap, min and max, calls of functions that only read: readOnlyCall) over
// the loop's variables and variables, fields and items that nothing in the
// loop, the goroutine included, nor a function of the package that they
// call, assigns or takes the address of (safeRead). A nil pointer, an index out
// of range or a failed assertion that such a read panics on panics in the
// callback, and gopar passes the panic on to the caller (as a *par.Panic).
func (p *pass) movable(st *ast.AssignStmt, f *fan) bool {
	if st.Tok != token.DEFINE || len(st.Lhs) != len(st.Rhs) && len(st.Rhs) != 1 {
		return false
	}
	for _, lhs := range st.Lhs {
		id, ok := lhs.(*ast.Ident)
		if !ok || id.Name == "_" {
			return false
		}
		if obj := p.TypesInfo.Defs[id]; obj == nil || !p.onlyMoved(obj, f, st) {
			return false
		}
	}
	for _, rhs := range st.Rhs {
		if !p.safeRead(rhs, f, true) {
			return false
		}
	}
	return true
}

// onlyMoved reports whether every use of obj, which st declares, is inside
// f's goroutine or its arguments, or in an assignment or an if of the
// loop's body after st, which the rewrite moves into the callback with it
// or gives up on (owner := owners[x] after x := xs[i]).
func (p *pass) onlyMoved(obj types.Object, f *fan, st ast.Stmt) bool {
	if f.lit == nil {
		return false
	}
	var moves []ast.Stmt
	for _, s := range loopBody(f.loop).List {
		if s.Pos() <= st.Pos() {
			continue
		}
		switch s.(type) {
		case *ast.AssignStmt, *ast.IfStmt:
			moves = append(moves, s)
		}
	}
	in := func(n ast.Node, id *ast.Ident) bool { return n.Pos() <= id.Pos() && id.Pos() < n.End() }
	for id, o := range p.TypesInfo.Uses {
		if o != obj || in(f.lit, id) || slices.ContainsFunc(f.args, func(a ast.Expr) bool { return in(a, id) }) {
			continue
		}
		if !slices.ContainsFunc(moves, func(s ast.Stmt) bool { return in(s, id) }) {
			return false
		}
	}
	return true
}

// safeExpr reports whether e calls nothing but len, cap, min and max,
// panics only where it reads through a nil pointer, and reads only
// constants, the loop's variables, and variables and fields that f's loop
// does not change (see movable).
func (p *pass) safeExpr(e ast.Expr, f *fan) bool {
	return p.safeRead(e, f, false)
}

// safeRead is safeExpr, where maps also allows reads of items of maps,
// slices and arrays, variables or field paths that f's loop, its
// goroutines included, does not write, and calls of functions that only
// read (readOnlyCall). A variable or a field that a function of the
// package that the loop calls may assign (calledEffects) is not safe to
// read either.
func (p *pass) safeRead(e ast.Expr, f *fan, maps bool) bool {
	safe := true
	// changed reports whether the loop, its goroutines or a function of
	// the package they call may change v.
	var called *effects
	calls := func() *effects {
		if called == nil {
			called = p.calledEffects(f.loop)
		}
		return called
	}
	changed := func(v *types.Var) bool { return p.changedIn(v, f.loop) || calls().writes[v] }
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil:
		case *ast.Ident:
			obj := p.TypesInfo.Uses[n]
			switch obj := obj.(type) {
			case *types.Const, *types.Nil, *types.Builtin, *types.TypeName:
			case *types.Var:
				// The loop's own variables are the callback's parameters;
				// any other variable keeps its value through the loop.
				// A field's name (x.f's f, a literal's key) is the
				// selector's, checked there.
				header := f.loop.Pos() <= obj.Pos() && obj.Pos() < loopBody(f.loop).Pos()
				if !header && !obj.IsField() && changed(obj) {
					safe = false
				}
			default:
				safe = false
			}
		case *ast.BasicLit, *ast.ParenExpr:
		case *ast.StarExpr:
			// *p panics only on a nil pointer, as a field read through one
			// does: such a panic moves into the callback, and gopar passes
			// it on to the caller. Where the loop or a function it calls
			// assigns through a pointer (*q = v), p may be q.
			if p.derefWritten(n, calls()) {
				safe = false
			}
		case *ast.SelectorExpr:
			if sel := p.TypesInfo.Selections[n]; sel != nil {
				field, ok := sel.Obj().(*types.Var)
				// A field of a local struct value (pe.Err, for a range's
				// pe): only the loop may change it, not a function it calls.
				local := p.ownPath(n, func(v *types.Var) bool { return !shared(v) })
				if sel.Kind() != types.FieldVal || !ok || local && p.changedIn(field, f.loop) || !local && (changed(field) || p.derefWritten(n.X, calls())) {
					safe = false // a method value, or a field the loop writes
				}
				break
			}
			// pkg.Name: a package's variable or constant, as an identifier.
			switch p.TypesInfo.Uses[n.Sel].(type) {
			case *types.Var:
				if changed(p.TypesInfo.Uses[n.Sel].(*types.Var)) {
					safe = false
				}
			case *types.Const, *types.TypeName:
			default:
				safe = false
			}
			return false
		case *ast.IndexExpr:
			if p.rangedItem(n, f) {
				return false // xs[i] in a loop for i := range xs: within bounds, the item the loop reads
			}
			// A map's entry, or an item of a slice or an array: one that
			// the loop, its goroutines included, does not write. An index
			// out of range panics in the callback, as a nil pointer does.
			t := p.TypesInfo.TypeOf(n.X).Underlying()
			if ptr, ok := t.(*types.Pointer); ok {
				t = ptr.Elem().Underlying()
			}
			switch t.(type) {
			case *types.Map, *types.Slice, *types.Array:
			default:
				safe = false
			}
			if !maps || !pure(n.X) || p.entriesWritten(n.X, repeated(f.loop)) {
				safe = false
			}
		case *ast.BinaryExpr:
			switch n.Op {
			case token.QUO, token.REM, token.SHL, token.SHR:
				// Safe by a constant: a divisor other than 0, a shift
				// count of at least 0.
				tv := p.TypesInfo.Types[n.Y]
				if tv.Value == nil || constant.Sign(tv.Value) < 0 || constant.Sign(tv.Value) == 0 && (n.Op == token.QUO || n.Op == token.REM) {
					safe = false
				}
			}
		case *ast.UnaryExpr:
			if ix, ok := ast.Unparen(n.X).(*ast.IndexExpr); ok && n.Op == token.AND && maps {
				// &xs[i]: an item's address, which reads no item; xs a
				// slice or an array that the loop does not assign.
				switch p.TypesInfo.TypeOf(ix.X).Underlying().(type) {
				case *types.Slice, *types.Array:
					if !pure(ix.X) || !p.safeRead(ix.X, f, maps) || !p.safeRead(ix.Index, f, maps) {
						safe = false
					}
				default:
					safe = false
				}
				return false
			}
			if n.Op != token.SUB && n.Op != token.ADD && n.Op != token.NOT && n.Op != token.XOR {
				safe = false
			}
		case *ast.TypeAssertExpr:
			// x.(T): a failed assertion panics in the callback, as a nil
			// pointer does.
		case *ast.CompositeLit, *ast.KeyValueExpr:
			// T{f: v}: a value made of safe reads.
		case *ast.CallExpr:
			if tv, ok := p.TypesInfo.Types[n.Fun]; ok && tv.IsType() {
				// A conversion, T(x): x's value as a T. One that panics
				// (a slice to an array shorter than it) panics in the
				// callback, as a nil pointer does.
				if len(n.Args) != 1 || !p.safeRead(n.Args[0], f, maps) {
					safe = false
				}
				return false
			}
			if b, ok := p.TypesInfo.Uses[identOf(n.Fun)].(*types.Builtin); ok {
				if b.Name() != "len" && b.Name() != "cap" && b.Name() != "min" && b.Name() != "max" {
					safe = false
				}
				break
			}
			// A call of a function that only reads what the loop leaves
			// alone (readOnlyCall), on operands that are safe reads.
			if !maps || !p.readOnlyCall(n, f) {
				safe = false
				break
			}
			operands := slices.Clip(n.Args)
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && p.TypesInfo.Selections[sel] != nil {
				operands = append(operands, sel.X)
			}
			for _, a := range operands {
				if !p.safeRead(a, f, maps) || p.itemsWritten(a, f) {
					safe = false
				}
			}
			return false
		default:
			safe = false
		}
		return safe
	})
	return safe
}

// leadingComments returns the comments on the lines between st, a
// statement of body, and the statement before it (or the body's brace),
// each ending in a newline: what the rewrite moves st with.
func (p *pass) leadingComments(st ast.Stmt, body *ast.BlockStmt) string {
	k := slices.Index(body.List, st)
	if k < 0 {
		return ""
	}
	from := body.Lbrace + 1
	if k > 0 {
		from = body.List[k-1].End()
	}
	// Not a comment on the line of the brace or of the statement before,
	// which belongs to that line.
	fromLine := p.Fset.Position(from).Line
	var text string
	for _, cg := range p.file.Comments {
		if cg.Pos() > from && cg.End() <= st.Pos() && p.Fset.Position(cg.Pos()).Line > fromLine {
			for _, c := range cg.List {
				text += c.Text + "\n"
			}
		}
	}
	return text
}

// keyOf returns a test of whether an object is f's loop's key: key, a
// copy of it that the loop declares (alias), or the goroutine's parameter
// that takes it.
func (p *pass) keyOf(f *fan, key types.Object, alias map[types.Object]types.Object) func(types.Object) bool {
	var params []types.Object
	if f.lit != nil {
		for _, fld := range f.lit.Type.Params.List {
			for _, n := range fld.Names {
				params = append(params, p.TypesInfo.Defs[n])
			}
		}
	}
	return func(o types.Object) bool {
		if o == nil || key == nil {
			return false
		}
		if o == key || alias[o] == key {
			return true
		}
		k := slices.Index(params, o)
		if k < 0 || k >= len(f.args) {
			return false
		}
		a := p.objOf(f.args[k])
		return a == key || alias[a] == key
	}
}

// ownSlot reports whether st, a statement of f's loop body, writes only
// the item's own slots (errs[i] = v, with i the loop's key, isKey): items
// of slices or arrays that the loop, its goroutines included, names only
// at the item's key, and that no function of the package it calls reads
// (a field's or a package variable's), so that no other item's callback
// reads or writes them. The values are safe reads (safeRead). In the
// callback the write runs before the goroutine's body, as in the loop.
func (p *pass) ownSlot(st *ast.AssignStmt, f *fan, isKey func(types.Object) bool) bool {
	if st.Tok != token.ASSIGN || len(st.Lhs) != len(st.Rhs) {
		return false
	}
	for k, l := range st.Lhs {
		ix, ok := ast.Unparen(l).(*ast.IndexExpr)
		if !ok || !pure(ix.X) || !isKey(p.objOf(ix.Index)) || !p.safeRead(st.Rhs[k], f, true) {
			return false
		}
		switch p.TypesInfo.TypeOf(ix.X).Underlying().(type) {
		case *types.Slice, *types.Array:
		default:
			return false
		}
		// A field or a package variable that a function the loop calls
		// reads: that function may read any item.
		if src := p.written(ix.X); src != nil {
			if v := src.(*types.Var); shared(v) && p.calledEffects(f.loop).reads[v] {
				return false
			}
		}
		text := p.src(ix.X)
		atKey := true
		var stack []ast.Node
		ast.Inspect(f.loop, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			if e, ok := n.(ast.Expr); ok && pure(e) && p.src(e) == text {
				parent, _ := stack[len(stack)-1].(*ast.IndexExpr)
				if parent == nil || parent.X != e || !isKey(p.objOf(parent.Index)) {
					atKey = false
				}
			}
			stack = append(stack, n)
			return atKey
		})
		if !atKey {
			return false
		}
	}
	return true
}

// skip reports whether s, an if of f's loop body, skips items: if c {
// ...; continue }, whose condition is a safe read (safeRead) over what
// its init declares from safe reads, and whose body holds writes of the
// item's own slots (ownSlot), skips of its own, and a continue at its
// end. In the callback it returns where the loop continues (skipText).
func (p *pass) skip(s *ast.IfStmt, f *fan, isKey func(types.Object) bool) bool {
	if s.Else != nil || !p.safeRead(s.Cond, f, true) {
		return false
	}
	if s.Init != nil {
		as, ok := s.Init.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE || slices.ContainsFunc(as.Rhs, func(e ast.Expr) bool { return !p.safeRead(e, f, true) }) {
			return false
		}
	}
	for k, st := range s.Body.List {
		switch st := st.(type) {
		case *ast.BranchStmt:
			if st.Tok != token.CONTINUE || st.Label != nil || k != len(s.Body.List)-1 {
				return false
			}
		case *ast.AssignStmt:
			if !p.ownSlot(st, f, isKey) {
				return false
			}
		case *ast.IfStmt:
			if !p.skip(st, f, isKey) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// skipText returns s, a skip, as the callback runs it: each continue a
// return (of nil, where the callback returns an error).
func (p *pass) skipText(s *ast.IfStmt, errs bool) string {
	text, base, ret := p.src(s), s.Pos(), returnOf(errs)
	var conts []*ast.BranchStmt
	ast.Inspect(s, func(n ast.Node) bool {
		if br, ok := n.(*ast.BranchStmt); ok && br.Tok == token.CONTINUE {
			conts = append(conts, br)
		}
		return true
	})
	for _, c := range slices.Backward(conts) {
		text = text[:c.Pos()-base] + ret + text[c.End()-base:]
	}
	return text
}

// returnOf returns the statement that ends the callback at once: return,
// or return nil where it returns an error.
func returnOf(errs bool) string {
	if errs {
		return "return nil"
	}
	return "return"
}

// rangedItem reports whether e is xs[i], an index within bounds: in f's
// loop for i := range xs (or i, x), or for i := 0; i < len(xs); i++ (or
// for i := range len(xs)), xs a slice or an array that is a variable or a
// field path that the loop does not change, or in a loop that counts i up
// to a constant no larger than the length of xs, an array.
func (p *pass) rangedItem(e *ast.IndexExpr, f *fan) bool {
	k := identOf(e.Index)
	if k == nil || !pure(e.X) {
		return false
	}
	var t types.Type = p.TypesInfo.TypeOf(e.X)
	if t == nil {
		return false
	}
	if ptr, ok := t.Underlying().(*types.Pointer); ok {
		t = ptr.Elem() // p[i] where p points to an array
	}
	arr, isArray := t.Underlying().(*types.Array)
	if _, isSlice := t.Underlying().(*types.Slice); !isSlice && !isArray {
		return false
	}
	if x := identOf(e.X); x != nil {
		if v, ok := p.objOf(x).(*types.Var); ok && p.changedIn(v, f.loop) {
			return false
		}
	}
	if rs, ok := f.loop.(*ast.RangeStmt); ok && rs.Key != nil && rs.Tok == token.DEFINE && pure(rs.X) && p.src(e.X) == p.src(rs.X) {
		return p.objOf(k) == p.objOf(rs.Key)
	}
	// A counted loop: its variable, and the count.
	n := p.count(f.loop)
	if n == nil {
		return false
	}
	var i types.Object
	switch l := f.loop.(type) {
	case *ast.RangeStmt:
		if l.Key == nil {
			return false
		}
		i = p.objOf(l.Key)
	case *ast.ForStmt:
		i = p.TypesInfo.Defs[identOf(l.Init.(*ast.AssignStmt).Lhs[0])]
		if v, ok := i.(*types.Var); !ok || p.changedIn(v, l.Body) {
			return false
		}
	}
	if i == nil || p.objOf(k) != i {
		return false
	}
	if p.src(n) == "len("+p.src(e.X)+")" {
		return true
	}
	tv := p.TypesInfo.Types[n]
	if !isArray || tv.Value == nil {
		return false
	}
	c, exact := constant.Int64Val(tv.Value)
	return exact && c <= arr.Len()
}

// entriesWritten reports whether n may write the map, slice or array m, a
// variable or a field path: it assigns m or one of its entries (or a field
// of one), takes the address of either (&m[k], or a call of a method with a
// pointer receiver on m[k]), deletes from it, clears it, or passes it to a
// function (which may write it).
func (p *pass) entriesWritten(m ast.Expr, n ast.Node) bool {
	text := p.src(m)
	is := func(e ast.Expr) bool { return e != nil && p.src(ast.Unparen(e)) == text }
	// entry reports whether e is m, or m[k] or a field path below it.
	entry := func(e ast.Expr) bool {
		for {
			if is(e) {
				return true
			}
			switch x := ast.Unparen(e).(type) {
			case *ast.IndexExpr:
				e = x.X
			case *ast.SelectorExpr:
				e = x.X
			default:
				return false
			}
		}
	}
	written := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if entry(l) {
					written = true
				}
			}
		case *ast.IncDecStmt:
			if entry(n.X) {
				written = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && entry(n.X) {
				written = true
			}
		case *ast.CallExpr:
			if b, ok := p.TypesInfo.Uses[identOf(n.Fun)].(*types.Builtin); ok && b.Name() == "len" {
				break
			}
			for _, a := range n.Args {
				if is(a) {
					written = true // delete(m, k), clear(m), f(m)
				}
			}
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && entry(sel.X) && p.addressed(sel) {
				written = true // m[k].Reset(): a method that takes the entry's address
			}
		}
		return !written
	})
	return written
}

// addressed reports whether sel, x.M of a call, is a method with a pointer
// receiver on x, a value: the call takes x's address, and may write it.
func (p *pass) addressed(sel *ast.SelectorExpr) bool {
	s := p.TypesInfo.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal {
		return false
	}
	if _, ptr := s.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer); !ptr {
		return false
	}
	_, xptr := p.TypesInfo.TypeOf(sel.X).Underlying().(*types.Pointer)
	return !xptr
}

// derefWritten reports whether x, a field path (a.b.c) or *p, holds a
// value, itself or on its way, of a type that e assigns through a pointer
// (*q = v): q may point to it.
func (p *pass) derefWritten(x ast.Expr, e *effects) bool {
	for x != nil {
		t := p.TypesInfo.TypeOf(x)
		if ptr, ok := t.(*types.Pointer); ok {
			t = ptr.Elem()
		}
		if e.derefWrites(t) {
			return true
		}
		switch y := ast.Unparen(x).(type) {
		case *ast.SelectorExpr:
			x = y.X
		case *ast.StarExpr:
			x = y.X
		case *ast.IndexExpr:
			x = y.X
		default:
			x = nil
		}
	}
	return false
}

// itemsWritten reports whether a, an operand of a call that only reads,
// is a slice or a map whose items the loop, its goroutines included, may
// write (entriesWritten): the call would read them.
func (p *pass) itemsWritten(a ast.Expr, f *fan) bool {
	switch p.TypesInfo.TypeOf(a).Underlying().(type) {
	case *types.Slice, *types.Map:
		return !pure(a) || p.entriesWritten(a, repeated(f.loop))
	}
	return false
}

// repeated returns what of loop runs at each item: a range's body (its
// range expression runs once, before the first), or a for loop.
func repeated(loop ast.Stmt) ast.Node {
	if rs, ok := loop.(*ast.RangeStmt); ok {
		return rs.Body
	}
	return loop
}

// identOf returns e as an identifier, or nil.
func identOf(e ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(e).(*ast.Ident)
	return id
}

// changedIn reports whether anything in n assigns v, increments it or
// takes its address.
func (p *pass) changedIn(v *types.Var, n ast.Node) bool {
	changed := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				break // declares; a redeclared v is assigned, but in the loop's own scope
			}
			for _, l := range n.Lhs {
				if p.objOf(l) == v {
					changed = true
				}
			}
		case *ast.IncDecStmt:
			if p.objOf(n.X) == v {
				changed = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && p.objOf(n.X) == v {
				changed = true
			}
		}
		return !changed
	})
	return changed
}

// keepFirst names: the variables that keep an errgroup's first error in its
// rewrite.
const (
	firstErrName  = "firstErr"
	firstOnceName = "firstErrOnce"
)

// keepFirstEdits returns the edits of the rewrite of an errgroup without a
// context (r.keepFirst): every item runs with ForEach over expr, and the
// first error that a call returns is kept, as the group's Wait keeps it,
// in a variable that replaces the Wait call. body is the task's body.
func (p *pass) keepFirstEdits(r *rewrite, expr, syncName, body string) []analysis.TextEdit {
	call := expr + ".ForEach(func(" + r.params + ") {\n" +
		"if err := func() error " + body + "(); err != nil {\n" +
		firstOnceName + ".Do(func() { " + firstErrName + " = err })\n}\n})"
	decls := "var " + firstErrName + " error\nvar " + firstOnceName + " " + syncName + ".Once\n"
	return []analysis.TextEdit{
		{Pos: r.from, End: r.to, NewText: []byte(decls + call + newlineUnless(r.keepsBetween))},
		{Pos: r.waitCall.Pos(), End: r.waitCall.End(), NewText: []byte(firstErrName)},
	}
}

// compiling returns the fixes, in order, whose rewrite of the file
// type-checks (goparapi.CheckFix), or, where none does, why not: the first
// error of the rewritten code.
func (p *pass) compiling(fixes ...analysis.SuggestedFix) ([]analysis.SuggestedFix, string) {
	var ok []analysis.SuggestedFix
	var broken error
	for _, fix := range fixes {
		if err := goparapi.CheckFix(p.Pass, p.file, fix); err != nil {
			broken = err
			continue
		}
		ok = append(ok, fix)
	}
	if len(ok) == 0 {
		return nil, "the rewrite would not compile: " + goparapi.ErrorText(p.Fset, broken)
	}
	return ok, ""
}

// more says that the loop does more than start the goroutines, quoting st.
func (p *pass) more(st ast.Stmt) string {
	return p.line(st, "the loop does more than start the goroutines")
}

// line returns why, followed by the first line of st's source.
func (p *pass) line(st ast.Stmt, why string) string {
	text, _, _ := strings.Cut(p.src(st), "\n")
	if len(text) > 40 {
		text = text[:40] + "..."
	}
	return why + " (`" + strings.TrimSpace(text) + "`)"
}

// between says that statements between the loop and the wait would move.
func (p *pass) between(f *fan) string {
	if f.at+1 < len(f.list) && f.at+1 < f.wait {
		return p.line(f.list[f.at+1], "statements between the loop and the Wait would run after the work instead of beside it")
	}
	return "statements between the loop and the Wait would run after the work instead of beside it"
}

// span is the node of the source from one position to another.
type span struct{ from, to token.Pos }

func (s span) Pos() token.Pos { return s.from }
func (s span) End() token.Pos { return s.to }

// redeclares reports whether body declares, among its own statements,
// one of the names.
func (p *pass) redeclares(body *ast.BlockStmt, names ...string) bool {
	for _, st := range body.List {
		var ids []*ast.Ident
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, l := range st.Lhs {
					if id := identOf(l); id != nil {
						ids = append(ids, id)
					}
				}
			}
		case *ast.DeclStmt:
			if gd, ok := st.Decl.(*ast.GenDecl); ok {
				for _, spec := range gd.Specs {
					if vs, ok := spec.(*ast.ValueSpec); ok {
						ids = append(ids, vs.Names...)
					}
				}
			}
		}
		for _, id := range ids {
			if p.TypesInfo.Defs[id] != nil && slices.Contains(names, id.Name) && id.Name != "" && id.Name != "_" {
				return true
			}
		}
	}
	return false
}

// newlineUnless returns "\n", the line break before the statement that
// follows an edit, unless the edit ends at the loop's end (keepsBetween),
// where the loop's own line break stays.
func newlineUnless(keepsBetween bool) string {
	if keepsBetween {
		return ""
	}
	return "\n"
}

// inert reports whether st, between f's loop and its Wait, declares
// variables from values that read nothing the loop changes (safeRead):
// it gives the same values before the work, beside it or after it.
func (p *pass) inert(st ast.Stmt, f *fan) bool {
	var values []ast.Expr
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok != token.DEFINE {
			return false
		}
		values = st.Rhs
	case *ast.DeclStmt:
		gd, ok := st.Decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			return false
		}
		for _, spec := range gd.Specs {
			values = append(values, spec.(*ast.ValueSpec).Values...)
		}
	default:
		return false
	}
	for _, v := range values {
		if !p.safeRead(v, f, true) {
			return false
		}
	}
	return true
}

// kindOf names the kind of a ranged type.
func kindOf(t types.Type) string {
	switch t.Underlying().(type) {
	case *types.Map:
		return "map"
	case *types.Chan:
		return "channel"
	case *types.Signature:
		return "function"
	case *types.Basic:
		return "string"
	}
	return types.TypeString(t, nil)
}

// mergeImportEdits joins two import edits at the same place into one: two
// insertions into an import block, or two rewrites of a file's one import
// into a block, which become one block with every import.
func mergeImportEdits(a, b []analysis.TextEdit) []analysis.TextEdit {
	if len(a) != 1 || len(b) != 1 || a[0].Pos != b[0].Pos {
		return append(a, b...)
	}
	if a[0].End == a[0].Pos {
		return []analysis.TextEdit{{Pos: a[0].Pos, End: a[0].End, NewText: append(append([]byte{}, b[0].NewText...), a[0].NewText...)}}
	}
	var std, other []string
	for _, text := range [][]byte{a[0].NewText, b[0].NewText} {
		for _, line := range strings.Split(string(text), "\n") {
			spec, ok := strings.CutPrefix(line, "\t")
			if !ok || slices.Contains(std, spec) || slices.Contains(other, spec) {
				continue
			}
			if path := spec[strings.Index(spec, `"`):]; !strings.Contains(strings.SplitN(path, "/", 2)[0], ".") {
				std = append(std, spec)
			} else {
				other = append(other, spec)
			}
		}
	}
	block := "import (\n\t" + strings.Join(std, "\n\t")
	if len(std) > 0 && len(other) > 0 {
		block += "\n"
	}
	if len(other) > 0 {
		block += "\n\t" + strings.Join(other, "\n\t")
	}
	return []analysis.TextEdit{{Pos: a[0].Pos, End: a[0].End, NewText: []byte(block + "\n)")}}
}

// deleteLine returns the edit that deletes st with its line, where st is
// alone on it.
func (p *pass) deleteLine(st ast.Node) analysis.TextEdit {
	tf := p.Fset.File(st.Pos())
	content, _ := p.ReadFile(tf.Name())
	start, end := tf.Offset(st.Pos()), tf.Offset(st.End())
	s := start
	for s > 0 && (content[s-1] == ' ' || content[s-1] == '\t') {
		s--
	}
	e := end
	for e < len(content) && (content[e] == ' ' || content[e] == '\t') {
		e++
	}
	if (s == 0 || content[s-1] == '\n') && e < len(content) && content[e] == '\n' {
		start, end = s, e+1
	}
	return analysis.TextEdit{Pos: tf.Pos(start), End: tf.Pos(end)}
}

// loopRewrite returns the rewrite of a goroutine-per-item, wg.Go,
// semaphore or errgroup loop, or nil.
func (p *pass) loopRewrite(f *fan) (*rewrite, string) {
	info := p.TypesInfo
	if f.shape == "weighted" {
		return nil, "a semaphore.Weighted's Acquire takes a context and may fail, which no gopar form does"
	}
	r := &rewrite{errs: f.shape == "errgroup"}
	ix := p.indexedGroup(f) // minio's errgroup: one error per index
	r.indexed = ix
	// The items.
	var key, val types.Object
	var mapKey types.Type // the key type, where the loop ranges over a map
	var fromChan bool     // the loop receives from a channel, or pulls an iterator
	var fromSeq bool      // the loop pulls an iterator (iter.Seq)
	var elem types.Type
	var over ast.Expr
	var once bool // over is not a variable: the rewrite may write it only once
	if n := p.count(f.loop); n != nil {
		if t := info.TypeOf(n); t == nil || !types.Identical(types.Default(t), types.Typ[types.Int]) {
			return nil, "the loop counts with a type other than int"
		}
		r.source = "par.Range(0, " + p.src(n) + ")"
		r.limit = "max(" + p.src(n) + ", 1)"
		if tv := info.Types[n]; tv.Value != nil && constant.Sign(tv.Value) > 0 {
			r.limit = p.src(n) // a constant count: Blocking takes it as it is
		}
		switch l := f.loop.(type) {
		case *ast.ForStmt:
			key = info.ObjectOf(l.Init.(*ast.AssignStmt).Lhs[0].(*ast.Ident))
		case *ast.RangeStmt:
			if l.Key != nil {
				key = p.objOf(l.Key)
			}
		}
	} else if lo, hi, i := p.bounds(f); lo != "" {
		r.source = "par.Range(" + lo + ", " + hi + ")"
		r.limit = "max(" + hi + "-" + lo + ", 1)"
		key = i
	} else {
		rs, ok := f.loop.(*ast.RangeStmt)
		if !ok || (rs.Tok != token.DEFINE && rs.Key != nil) {
			return nil, "the loop is neither a range declaring its own variables nor a count from one bound to another"
		}
		// A range over a call (d.Paths()) evaluates it once, before the
		// first goroutine; so does the rewrite, in its source's argument,
		// at the loop's place, where nothing may write it again.
		once = !pure(rs.X)
		switch t := info.TypeOf(rs.X).Underlying().(type) {
		case *types.Slice:
			elem = t.Elem()
		case *types.Array:
			elem = t.Elem()
		case *types.Map:
			elem, mapKey = t.Elem(), t.Key()
		case *types.Chan:
			if t.Dir() == types.SendOnly {
				return nil, "the loop ranges over a send-only channel"
			}
			elem, fromChan = t.Elem(), true
		case *types.Signature:
			// A range over an iterator of one value (iter.Seq, slices.Chunk):
			// par.FromSeq pulls it as the loop did, one goroutine at a time.
			if elem = seqElem(t); elem == nil || rs.Value != nil {
				return nil, "the loop ranges over a function that is not an iterator of one value"
			}
			fromChan, fromSeq = true, true
		default:
			return nil, fmt.Sprintf("the loop ranges over a %s, where the rewrite takes a slice, an array, a map, a channel, an iterator or a count", kindOf(info.TypeOf(rs.X)))
		}
		over = rs.X
		if rs.Key != nil {
			key = p.objOf(rs.Key)
		}
		if rs.Value != nil {
			val = p.objOf(rs.Value)
		}
		r.limit = "max(len(" + p.src(over) + "), 1)"
		if fromChan || once {
			r.limit = "" // as many at once as items: no Blocking limit in sight, or none to write
		}
		if once && mapKey != nil {
			return nil, "the loop ranges over the map that `" + p.src(over) + "` gives, which the rewrite would read again at each item"
		}
	}
	// A file older than Go 1.21 has no max builtin. Where its version is
	// its module's go line, adding gopar (which needs Go 1.24) raises that
	// line; a file held older by a //go:build line of its own gets the
	// pool's form only.
	if v := info.FileVersions[p.file]; v != "" && version.Compare(v, "go1.21") < 0 && strings.HasPrefix(r.limit, "max(") {
		if p.Module == nil || p.Module.GoVersion == "" || version.Compare(v, "go"+p.Module.GoVersion) != 0 {
			r.limit = ""
		}
	}
	// The loop body: copies, Add(1), the semaphore's send, the spawn, and
	// declarations that the rewrite moves into the callback (movable).
	var moved []ast.Stmt
	var prep []ast.Stmt                // statements that stay in a loop of their own before the call (prepares)
	names := map[types.Object]string{} // loop variable -> the name the goroutine uses
	alias := map[types.Object]types.Object{}
	addInLoop := false
	spawned := false // the loop has started the goroutine
	isKey := p.keyOf(f, key, alias)
	stmts := loopBody(f.loop).List
	if u, ok := f.under.(*ast.IfStmt); ok {
		// The spawn under an if, the loop body's last statement: the
		// callback returns at once where the condition is false.
		if u != stmts[len(stmts)-1] || u.Init != nil || u.Else != nil || !p.safeRead(u.Cond, f, true) {
			return nil, p.line(u, "the goroutine starts only under an if")
		}
		stmts = append(slices.Clip(stmts), u.Body.List...)
	}
	for _, st := range stmts {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE && len(st.Lhs) == 1 && len(st.Rhs) == 1 {
				if src := p.objOf(st.Rhs[0]); src != nil && (src == key || src == val) {
					alias[p.objOf(st.Lhs[0])] = src
					continue
				}
			}
			if !p.movable(st, f) && !p.ownSlot(st, f, isKey) {
				if spawned || len(moved) > 0 || !p.prepares(st, f, key, val) {
					return nil, p.more(st)
				}
				prep = append(prep, st)
				continue
			}
			moved = append(moved, st)
		case *ast.IncDecStmt:
			if spawned || len(moved) > 0 || !p.prepares(st, f, key, val) {
				return nil, p.more(st)
			}
			prep = append(prep, st)
		case *ast.SendStmt:
			if f.sem == nil || p.objOf(st.Chan) != f.sem {
				return nil, p.more(st)
			}
		case *ast.ExprStmt:
			call, ok := ast.Unparen(st.X).(*ast.CallExpr)
			if !ok {
				return nil, p.more(st)
			}
			if p.indexedSpawn(call, f, ix) {
				spawned = true
				continue
			}
			if p.isCall(call, f.group, "Add") {
				if tv := info.Types[call.Args[0]]; tv.Value == nil || tv.Value.String() != "1" {
					return nil, "the loop adds more than 1 to the WaitGroup per item"
				}
				addInLoop = true
				continue
			}
			if len(call.Args) != 1 || !p.isWorker(call.Args[0], f) {
				return nil, p.more(st)
			}
			spawned = true
		case *ast.GoStmt:
			if !p.isWorker(st.Call.Fun, f) {
				return nil, p.more(st)
			}
			spawned = true
		case *ast.SelectStmt:
			if !p.stopsOnCtx(st, f) {
				return nil, p.more(st)
			}
			r.ctxCheck = st
		case *ast.IfStmt:
			if ast.Stmt(st) == f.under {
				moved = append(moved, st)
				continue
			}
			// if c { continue }: the callback returns at once for the items
			// the loop skips (skip).
			if spawned || !p.skip(st, f, isKey) {
				return nil, p.more(st)
			}
			moved = append(moved, st)
		default:
			return nil, p.more(st)
		}
	}
	// The goroutine's parameters are loop variables.
	var litParams []*ast.Ident
	for _, fld := range f.lit.Type.Params.List {
		if len(fld.Names) == 0 {
			return nil, "the goroutine has an unnamed parameter"
		}
		litParams = append(litParams, fld.Names...)
	}
	if len(litParams) != len(f.args) {
		return nil, "the go statement's arguments do not match the goroutine's parameters"
	}
	resolve := func(o types.Object) types.Object {
		if a, ok := alias[o]; ok {
			return a
		}
		return o
	}
	use := func(loopVar types.Object, name string) bool {
		if prev, ok := names[loopVar]; ok && prev != name {
			return false
		}
		names[loopVar] = name
		return true
	}
	var argCopies []string // name := arg, for the goroutine's parameters that are not loop variables
	for k, a := range f.args {
		o := resolve(p.objOf(a))
		if o == nil || (o != key && o != val) {
			// A value the loop does not change (a variable of the caller's,
			// a field, xs[i]): the callback reads it, where the goroutine
			// got it, as a variable of its own where the goroutine assigns
			// its parameter or names it otherwise.
			param := info.Defs[litParams[k]]
			if !p.safeRead(a, f, true) || param == nil || !types.Identical(info.TypeOf(a), param.Type()) {
				return nil, fmt.Sprintf("the goroutine's argument %s is not a loop variable", p.src(a))
			}
			if id := identOf(a); litParams[k].Name != "_" && (id == nil || id.Name != litParams[k].Name || p.changedIn(param.(*types.Var), f.lit.Body)) {
				argCopies = append(argCopies, litParams[k].Name+" := "+p.src(a))
				named := true // the loop variables it reads, by the names it reads them
				ast.Inspect(a, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						if o := resolve(info.Uses[id]); o != nil && (o == key || o == val) && !use(o, id.Name) {
							named = false
						}
					}
					return named
				})
				if !named {
					return nil, "the goroutine names a loop variable in two ways"
				}
			}
			continue
		}
		if !types.Identical(info.TypeOf(a), info.ObjectOf(litParams[k]).Type()) || !use(o, litParams[k].Name) {
			return nil, "the goroutine names a loop variable in two ways"
		}
	}
	// Loop variables (or their copies) the goroutine captures.
	bad := false
	ast.Inspect(f.lit.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			o := info.Uses[id]
			if r := resolve(o); r != nil && (r == key || r == val) && r != o || o != nil && (o == key || o == val) {
				if !use(resolve(o), id.Name) {
					bad = true
				}
			}
		}
		return !bad
	})
	// The moved declarations name the loop variables as the goroutine does.
	for _, st := range moved {
		exprs, text := []ast.Node{st}, p.src(st)
		if st, ok := st.(*ast.IfStmt); ok {
			if ast.Stmt(st) == f.under {
				// if c { go ... }: return where !c
				exprs, text = []ast.Node{st.Cond}, "if "+p.negate(st.Cond)+" {\n"+returnOf(r.errs)+"\n}"
			} else {
				text = p.skipText(st, r.errs)
			}
		}
		for _, e := range exprs {
			ast.Inspect(e, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					if o := resolve(info.Uses[id]); o != nil && (o == key || o == val) && !use(o, id.Name) {
						bad = true
					}
				}
				return !bad
			})
		}
		r.prelude = append(r.prelude, p.leadingComments(st, loopBody(f.loop))+text)
	}
	r.prelude = append(r.prelude, argCopies...)
	if ix != nil {
		// Go's index is the loop's, and WithNErrs has a slot for each.
		id := identOf(ix.index)
		if id == nil || key == nil || mapKey != nil || resolve(p.objOf(id)) != key || !use(key, id.Name) {
			return nil, "the group's index is not the loop's index"
		}
		if once || !p.covers(f, ix, over) {
			return nil, "the group keeps a number of errors other than the loop's number of items"
		}
	}
	if bad {
		return nil, "the goroutine names a loop variable in two ways"
	}
	// What the goroutine does besides the work: Done, the semaphore's release.
	var strip []ast.Stmt
	list := f.lit.Body.List
	for k, st := range list {
		switch {
		case p.isDone(st, f.group) && (k == 0 || k == len(list)-1 || isDefer(st)):
			strip = append(strip, st)
		case f.sem != nil && p.isRelease(st, f.sem):
			strip = append(strip, st)
		}
	}
	released := func() bool { // the one strip is the semaphore's release, deferred or last
		return len(strip) == 1 && !p.mentionsOutside(f.lit.Body, f.sem, strip) && (isDefer(strip[0]) || strip[0] == list[len(list)-1] && !hasReturn(f.lit.Body))
	}
	counted := f.shape == "counted" // a goroutine per item, joined by counting receives
	var sent *ast.SendStmt          // its one send, its last statement
	if counted {
		sent, _ = list[len(list)-1].(*ast.SendStmt)
		if sent == nil || p.objOf(sent.Chan) != f.sem || p.mentionsBut(f.lit.Body, f.sem, sent.Chan) || hasReturn(f.lit.Body) {
			return nil, "the goroutine does more than end with one send of its result"
		}
	} else if f.shape == "refill" {
		if !released() {
			return nil, "the semaphore is not released once, deferred or last, in the goroutine"
		}
	} else if f.shape == "waitgroup" || f.shape == "semaphore" {
		// wg.Done(); return, in a branch: the callback's return says the
		// same, where every return of the goroutine has its Done.
		early, everyReturn := p.doneReturns(f.lit.Body, f.group)
		if f.sem == nil && everyReturn {
			strip = append(strip, early...)
		}
		if len(strip) == 0 || p.mentionsOutside(f.lit.Body, f.group, strip) || (f.sem != nil && p.mentionsOutside(f.lit.Body, f.sem, strip)) {
			return nil, "the goroutine uses the WaitGroup or the semaphore other than in its Done and release"
		}
		if f.sem != nil && len(strip) != 2 {
			return nil, "the semaphore is not taken once before the go statement and released once in the goroutine"
		}
		// A Done that is not deferred must be the last statement, with no
		// return before it but one that has its own Done.
		for _, st := range strip {
			if !isDefer(st) && !slices.Contains(early, st) && (st != list[len(list)-1] || hasReturn(f.lit.Body) && (f.sem != nil || !everyReturn)) {
				return nil, "the goroutine calls Done other than in a defer or as its last statement"
			}
		}
	} else if p.mentionsOutside(f.lit.Body, f.group, nil) {
		return nil, "the goroutine uses the group itself"
	} else if f.semGo && !released() {
		// sem <- struct{}{} before g.Go, <-sem in the task: Blocking(cap(sem)).
		return nil, "the semaphore is not released once, deferred or last, in the task"
	}
	// The results.
	res := f.lit.Type.Results
	if r.errs != (res != nil && len(res.List) == 1) && ix == nil || ix != nil && (res == nil || len(res.List) != 1 || len(res.List[0].Names) > 1) {
		return nil, "the goroutine's results do not match the group's"
	}
	// An errgroup without a context runs every item, even after one has
	// failed, and Wait returns the first error; TryForEach would start none
	// after it. So the rewrite runs every item with ForEach and keeps the
	// first error as the group does (keepFirst).
	r.keepFirst = r.errs && (f.gctx == nil || f.gctx.Name() == "_") && p.mayFail(f.body)
	// Set-up before the loop, and the wait after it.
	// Declarations between the loop and the Wait that read nothing the
	// loop changes stay where they are: they run before the work or after
	// it, with the same values.
	between := f.list[f.at+1 : f.wait]
	aside := false // counted: the par call runs in a goroutine in the loop's place
	for _, st := range between {
		if !p.inert(st, f) || f.shape == "refill" {
			if !counted {
				return nil, p.between(f)
			}
			aside = true
		}
	}
	if ix != nil {
		if why := p.indexedWait(f, r, ix); why != "" {
			return nil, why
		}
	} else if f.shape == "refill" {
		// for range cap(sem) { sem <- struct{}{} }, then close(sem) or not.
		if !p.refills(f.list[f.wait], f) {
			return nil, "the join is not one loop that fills the semaphore to its capacity"
		}
		r.from, r.to = f.list[f.at].Pos(), f.list[f.wait].End()
		if next := f.wait + 1; next < len(f.list) && p.closes(f.list[next], f.sem) {
			r.remove = append(r.remove, f.list[next])
		}
	} else if counted {
		why := ""
		if !aside {
			why = p.receivesJoin(f, r, sent, over)
		}
		if aside || why != "" {
			// The caller works before its receives, or its receives stop
			// early or are not one per item: the goroutines' work keeps
			// its sends and runs in a goroutine of its own.
			if whyS := p.countedSpawned(f, r, moved, over); whyS != "" {
				if why == "" {
					why = whyS
				}
				return nil, why
			}
		}
	} else if !r.errs && f.waitGo {
		if why := p.waiterRewrite(f, r, moved, over); why != "" {
			return nil, why
		}
	} else if !r.errs {
		es, ok := f.list[f.wait].(*ast.ExprStmt)
		if !ok || ast.Unparen(es.X) != f.call {
			return nil, "the Wait is part of a larger statement"
		}
		r.from, r.to = f.list[f.at].Pos(), es.End()
	} else {
		if why := p.waitFirst(f.list[f.wait], f.call); why != "" {
			return nil, why
		}
		r.from, r.to, r.waitCall = f.list[f.at].Pos(), f.list[f.wait].Pos(), f.call
	}
	if len(between) > 0 && !counted {
		// The call takes the loop's place, or the Wait's in its statement;
		// the declarations stay, and a statement that only waits goes.
		if r.to == f.list[f.wait].End() {
			r.remove = append(r.remove, f.list[f.wait])
		}
		r.to, r.keepsBetween = f.list[f.at].End(), true
	}
	addBefore := false
	for _, st := range f.list[:f.at] {
		if st == f.closDecl {
			r.remove = append(r.remove, st)
			continue
		}
		if specs := p.blockSpecs(st, f); specs != nil {
			r.remove = append(r.remove, specs...)
			continue
		}
		if !p.setup(st, f) {
			if f.group != nil && p.mentions(st, f.group) || (f.sem != nil && p.mentions(st, f.sem)) {
				return nil, p.line(st, "the group is used before the loop other than to declare it, Add or SetLimit")
			}
			continue
		}
		if es, ok := st.(*ast.ExprStmt); ok {
			call := ast.Unparen(es.X).(*ast.CallExpr)
			if p.isCall(call, f.group, "Add") {
				n := p.src(call.Args[0])
				if once || over != nil && n != "len("+p.src(over)+")" || over == nil && "par.Range(0, "+n+")" != r.source {
					return nil, "the Add before the loop is not the number of items"
				}
				addBefore = true
			}
		}
		r.remove = append(r.remove, st)
	}
	if (f.shape == "waitgroup" || f.shape == "semaphore") && addInLoop == addBefore {
		return nil, "the WaitGroup's Add is neither 1 per item in the loop nor the number of items before it"
	}
	joins := []types.Object{f.group, f.sem}
	if r.spawned {
		// The results' channel stays, with its receives.
		joins = joins[:1]
		r.remove = slices.DeleteFunc(r.remove, func(st ast.Stmt) bool { return p.declares(st, f.sem) })
	}
	if f.group != nil && !p.declaredIn(f.group, r.remove) || (f.sem != nil && !r.spawned && !p.declaredIn(f.sem, r.remove)) {
		return nil, "the group is not declared just for this loop (a parameter, a field or a variable declared elsewhere)"
	}
	// Nothing else uses the group, the semaphore or errgroup's context.
	for _, o := range joins {
		if o != nil && p.usedElsewhere(o, f, r.remove) {
			if text := p.reused(o, f, r.remove); text != "" {
				r.redeclare = map[ast.Stmt]string{p.declOf(o, r.remove): text}
				continue
			}
			return nil, "the group or the semaphore is used again outside the loop and its wait"
		}
	}
	if f.gctx != nil {
		if p.gctxUsedOutside(f, r.ctxCheck) {
			return nil, "errgroup's context is used outside the goroutines"
		}
		if f.gctx.Name() != "_" {
			r.ctxName = f.gctx.Name()
		}
		if r.ctxName != "" {
			r.parent = p.src(f.pctx)
		}
	}
	// The limit.
	if ix != nil && ix.limit != nil {
		r.limit, r.hasLimit = p.indexedLimit(ix), true
	} else if f.semGo {
		capacity := p.chanCap(f.list[:f.at], f.sem)
		switch {
		case f.limit != nil:
			return nil, "both SetLimit and a semaphore channel bound the group"
		case capacity == nil:
			return nil, "the semaphore channel's capacity is not in sight"
		}
		r.limit, r.hasLimit = p.src(capacity), true
	} else if f.limit != nil {
		if tv := info.Types[f.limit]; tv.Value != nil && constant.Sign(tv.Value) <= 0 {
			return nil, "SetLimit sets no limit that Blocking takes" // SetLimit(-1), or 0
		}
		r.limit, r.hasLimit = p.src(f.limit), true
		if tv := info.Types[f.limit]; tv.Value == nil && f.shape != "semaphore" && f.shape != "refill" {
			// SetLimit(n) with n < 0 sets no limit, where Blocking(n)
			// panics: the rewrite runs such a group one item at a time,
			// the same calls with the same results.
			r.limit = "max(" + r.limit + ", 1)"
		}
	} else if f.shape == "semaphore" || f.shape == "refill" {
		return nil, "the semaphore channel's capacity is not in sight"
	}
	// The callback's parameters.
	keyName, valName := names[key], names[val]
	if key == nil {
		keyName = ""
	}
	typeOf := func(t types.Type) (string, bool) { return p.typeString(t) }
	if fromChan {
		keyName, valName = "", keyName // a channel's range declares its item first
	}
	switch {
	case mapKey != nil: // par.FromSeq(maps.Keys(m)), the value read by key
		kt, ok := typeOf(mapKey)
		if !ok {
			return nil, "the key type names a package the file does not import"
		}
		switch {
		case keyName == "" && valName == "":
			keyName = "_"
		case keyName == "":
			if keyName = p.freshName("k", f); keyName == "" {
				return nil, "the rewrite finds no name for the map's key"
			}
		}
		r.source = "par.FromSeq(maps.Keys(" + p.src(over) + "))"
		r.params = keyName + " " + kt
		if valName != "" {
			r.itemFirst = valName + " := " + p.src(over) + "[" + keyName + "]"
		}
		r.std = append(r.std, "maps")
	case over == nil: // par.Range
		if keyName == "" {
			keyName = "_"
		}
		r.params = keyName + " int"
	case keyName != "" && valName != "":
		t, ok := typeOf(elem)
		if !ok {
			return nil, "the item type names a package the file does not import"
		}
		if r.errs || counted {
			if _, isID := ast.Unparen(over).(*ast.Ident); !isID {
				return nil, "the ranged expression is not a plain name"
			}
			r.source = "par.Range(0, len(" + p.src(over) + "))"
			r.params = keyName + " int"
			r.itemFirst = valName + " := " + p.src(over) + "[" + keyName + "]"
		} else {
			r.source = "par.Slice(" + p.src(over) + ")"
			r.params = keyName + " int, " + valName + " " + t
			r.useIndexed = true
		}
	case keyName != "":
		r.source = "par.Range(0, len(" + p.src(over) + "))"
		r.params = keyName + " int"
	default:
		t, ok := typeOf(elem)
		if !ok {
			return nil, "the item type names a package the file does not import"
		}
		if valName == "" {
			valName = "_"
		}
		r.source = "par.Slice(" + p.src(over) + ")"
		if fromChan {
			r.source = "par.FromChan(" + p.src(over) + ")"
		}
		if fromSeq {
			r.source = "par.FromSeq(" + p.src(over) + ")"
		}
		r.params = valName + " " + t
	}
	r.body = p.bodyWithout(f.lit.Body, strip)
	if ix != nil {
		r.body = p.indexedBody(f, ix, keyName)
	}
	if counted && !r.spawned {
		// The goroutine's statements, its result returned where it sent it.
		body := p.bodyWithout(f.lit.Body, []ast.Stmt{sent})
		r.body = strings.TrimRight(body[:len(body)-1], " \t\n") + "\nreturn " + p.src(sent.Value) + "\n}"
	}
	if ix == nil && p.redeclares(f.lit.Body, keyName, valName, r.ctxName) {
		// u := strings.TrimSpace(u) in the goroutine, whose u is now the
		// callback's parameter: the body goes in a block of its own, where
		// the name may be declared again, as it was in the goroutine.
		r.body = "{\n" + r.body + "\n}"
	}
	r.ioish = p.ioish(f.lit.Body)
	if len(prep) > 0 {
		if r.from != f.loop.Pos() || r.mapped != nil || r.indexed != nil || r.keepFirst || r.background != "" || r.spawned || r.task != "" {
			return nil, p.more(prep[0])
		}
		text, ok := p.prepLoop(f, prep)
		if !ok {
			return nil, p.more(prep[0])
		}
		r.before = text
	}
	return r, ""
}

// prepares reports whether st, a statement of f's loop body before its go
// statement, may stay in a loop of its own that runs before the par call:
// an assignment (not a declaration) or an increment of a local variable
// of the function, or of an item or field of one (total += n,
// index[x] = i), that the goroutine and every other statement of the loop
// leave alone, from values that read only the loop's variables (key, val)
// and what the loop and its goroutines do not change (safeRead). Each
// goroutine started before the original statement ran beside it without
// seeing it (a race otherwise), so running every such statement first, in
// the same order, is one schedule of the original program's.
func (p *pass) prepares(st ast.Stmt, f *fan, key, val types.Object) bool {
	var lhs, rhs []ast.Expr
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			return false
		}
		lhs, rhs = st.Lhs, st.Rhs
	case *ast.IncDecStmt:
		lhs = []ast.Expr{st.X}
	default:
		return false
	}
	fn := p.funcAt(f.loop.Pos())
	if fn == nil {
		return false
	}
	for _, l := range lhs {
		root := rootVar(l)
		if root == nil {
			return false
		}
		// A variable declared in the function's body, before the loop.
		v, ok := p.TypesInfo.Uses[root].(*types.Var)
		if !ok || v.IsField() || !(fn.Pos() <= v.Pos() && v.Pos() < f.loop.Pos()) {
			return false
		}
		// Nothing else of the loop uses it, the goroutine included, nor
		// any function literal of the function, which the goroutine may
		// call.
		used := false
		ast.Inspect(fn, func(n ast.Node) bool {
			if n == st {
				return false
			}
			if id, ok := n.(*ast.Ident); ok && p.TypesInfo.Uses[id] == v && !used {
				lit := p.funcAt(id.Pos()) != fn // in a function literal of fn's
				used = lit || f.loop.Pos() <= id.Pos() && id.Pos() < f.loop.End()
			}
			return !used
		})
		if used {
			return false
		}
		// The indexes and keys it writes at are safe reads too.
		for x := ast.Unparen(l); ; {
			if ix, ok := x.(*ast.IndexExpr); ok {
				if !p.safeRead(ix.Index, f, true) {
					return false
				}
				x = ast.Unparen(ix.X)
				continue
			}
			if sel, ok := x.(*ast.SelectorExpr); ok {
				x = ast.Unparen(sel.X)
				continue
			}
			break
		}
	}
	for _, e := range rhs {
		if !p.safeRead(e, f, true) {
			return false
		}
	}
	// It reads no variable declared in the loop but the loop's own.
	inLoop := false
	ast.Inspect(st, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := p.TypesInfo.Uses[id].(*types.Var); ok && v != key && v != val && loopBody(f.loop).Pos() <= v.Pos() && v.Pos() < loopBody(f.loop).End() {
				inLoop = true
			}
		}
		return !inLoop
	})
	return !inLoop && !hasBranch(&ast.BlockStmt{List: []ast.Stmt{st}})
}

// rootVar returns the variable at the root of a path (x, x.f, x[i],
// x[i].f), or nil where it goes through a pointer's dereference or a call.
func rootVar(e ast.Expr) *ast.Ident {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// prepLoop returns the loop that runs the statements of prep, as f's loop
// ran them, with the loop's header, where the loop ranges with its own
// variables (:=) or counts; the variables that prep does not use become _.
func (p *pass) prepLoop(f *fan, prep []ast.Stmt) (string, bool) {
	uses := func(o types.Object) bool {
		found := false
		for _, st := range prep {
			ast.Inspect(st, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && o != nil && p.TypesInfo.Uses[id] == o {
					found = true
				}
				return !found
			})
		}
		return found
	}
	var header string
	switch l := f.loop.(type) {
	case *ast.RangeStmt:
		if l.Key != nil && l.Tok != token.DEFINE {
			return "", false
		}
		k, v := "_", "_"
		if l.Key != nil && uses(p.objOf(l.Key)) {
			k = p.src(l.Key)
		}
		if l.Value != nil && uses(p.objOf(l.Value)) {
			v = p.src(l.Value)
		}
		switch {
		case v != "_":
			header = "for " + k + ", " + v + " := range " + p.src(l.X)
		case k != "_":
			header = "for " + k + " := range " + p.src(l.X)
		default:
			header = "for range " + p.src(l.X)
		}
	case *ast.ForStmt:
		header = strings.TrimSpace(p.src(span{l.Pos(), l.Body.Lbrace}))
	default:
		return "", false
	}
	var b strings.Builder
	b.WriteString(header + " {\n")
	for _, st := range prep {
		b.WriteString(p.leadingComments(st, loopBody(f.loop)) + p.src(st) + "\n")
	}
	b.WriteString("}\n")
	return b.String(), true
}

// countedSpawned sets r, the rewrite of f, a goroutine per item joined by
// counted receives, to run the par call in a goroutine of its own in the
// loop's place, every item at once as before, with the goroutine's body,
// its send included, as the callback: the caller's statements after the
// loop and its receives stay as they are. The callbacks read the items
// while the caller goes on, so the loop must move no statement into the
// callback, and the caller must not change the items, nor what the loop
// counts to, after the loop.
func (p *pass) countedSpawned(f *fan, r *rewrite, moved []ast.Stmt, over ast.Expr) string {
	if len(moved) > 0 || r.ctxCheck != nil || r.limit == "" || r.hasLimit {
		return "the loop does more than start the goroutines, and the caller works before its receives"
	}
	if why := p.itemsKept(f, over); why != "" {
		return why
	}
	r.from, r.to, r.spawned = f.loop.Pos(), f.loop.End(), true
	return ""
}

// itemsKept says why the caller's statements after f's loop may change
// the items that a par call reads while they run (over, or the loop's
// count where over is nil), or "" where they do not.
func (p *pass) itemsKept(f *fan, over ast.Expr) string {
	src := over
	if src == nil {
		src = p.count(f.loop)
	}
	if src == nil || !pure(src) {
		return "the items are not a variable"
	}
	rest := &ast.BlockStmt{List: f.list[f.at+1:]}
	var changed bool
	ast.Inspect(src, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := p.TypesInfo.Uses[id].(*types.Var); ok && p.changedIn(v, rest) {
				changed = true
			}
		}
		return true
	})
	if changed || p.entriesWritten(src, rest) {
		return "the caller changes the items after the loop, while the goroutines may still read them"
	}
	return ""
}

// waiterRewrite sets r, the rewrite of f, whose Wait runs in a goroutine
// of its own (go func() { wg.Wait(); close(results) }()), to put the par
// call in the Wait's place there: the loop goes, and the work runs on that
// goroutine's behalf, beside the caller, as before. The callbacks read the
// items while the caller goes on, so the loop must move no statement into
// the callback, and the caller must not change the items after the loop.
func (p *pass) waiterRewrite(f *fan, r *rewrite, moved []ast.Stmt, over ast.Expr) string {
	if len(moved) > 0 || r.ctxCheck != nil {
		return "the loop does more than start the goroutines, and the Wait runs in a goroutine of its own"
	}
	if why := p.itemsKept(f, over); why != "" {
		return why
	}
	lit := waiterLit(f.list[f.wait])
	if lit == nil || !slices.ContainsFunc(lit.Body.List, func(st ast.Stmt) bool {
		es, ok := st.(*ast.ExprStmt)
		return ok && ast.Unparen(es.X) == f.call
	}) {
		return "the Wait is part of a larger statement"
	}
	r.from, r.to, r.waitCall, r.blockingOnly = f.loop.Pos(), f.loop.End(), f.call, true
	return ""
}

// waiterLit returns the function literal that st, a go statement or a
// group's Go, runs; nil otherwise.
func waiterLit(st ast.Stmt) *ast.FuncLit {
	var call *ast.CallExpr
	switch st := st.(type) {
	case *ast.GoStmt:
		lit, _ := ast.Unparen(st.Call.Fun).(*ast.FuncLit)
		return lit
	case *ast.ExprStmt:
		call, _ = ast.Unparen(st.X).(*ast.CallExpr)
	}
	if call == nil || len(call.Args) != 1 {
		return nil
	}
	lit, _ := ast.Unparen(call.Args[0]).(*ast.FuncLit)
	return lit
}

// refills reports whether st is a loop that fills f's semaphore to its
// capacity: for range cap(sem) (or its capacity) { sem <- v }, one send
// per round and nothing else.
func (p *pass) refills(st ast.Stmt, f *fan) bool {
	n, body := p.count(st), loopBody(st)
	if n == nil || body == nil || len(body.List) != 1 {
		return false
	}
	send, ok := body.List[0].(*ast.SendStmt)
	if !ok || p.objOf(send.Chan) != f.sem {
		return false
	}
	return p.src(n) == "cap("+f.sem.Name()+")" || f.limit != nil && p.src(n) == p.src(f.limit)
}

// bounds returns the bounds of a loop for i := lo; i < hi; i++ (or i <=
// hi, whose bound is then hi+1) that counts with an int from one bound to
// another, and i; "" where f's loop is not one. hi must not change in the
// loop (safeExpr), nor i in its body.
func (p *pass) bounds(f *fan) (lo, hi string, i types.Object) {
	l, ok := f.loop.(*ast.ForStmt)
	if !ok {
		return "", "", nil
	}
	as, ok := l.Init.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Tok != token.DEFINE {
		return "", "", nil
	}
	i = p.TypesInfo.Defs[identOf(as.Lhs[0])]
	cond, ok := l.Cond.(*ast.BinaryExpr)
	inc, ok2 := l.Post.(*ast.IncDecStmt)
	if i == nil || !ok || !ok2 || inc.Tok != token.INC || p.objOf(inc.X) != i || p.objOf(cond.X) != i {
		return "", "", nil
	}
	v, _ := i.(*types.Var)
	if v == nil || !types.Identical(v.Type(), types.Typ[types.Int]) || p.changedIn(v, l.Body) || !p.safeExpr(cond.Y, f) {
		return "", "", nil
	}
	lo, hi = operand(as.Rhs[0], p.src(as.Rhs[0])), operand(cond.Y, p.src(cond.Y))
	switch cond.Op {
	case token.LSS:
	case token.LEQ:
		hi += "+1"
	default:
		return "", "", nil
	}
	return lo, hi, i
}

// operand returns text, the text of e, in parentheses unless e is an
// operand that binds tighter than any operator.
func operand(e ast.Expr, text string) string {
	switch e.(type) {
	case *ast.Ident, *ast.BasicLit, *ast.SelectorExpr, *ast.CallExpr, *ast.IndexExpr, *ast.ParenExpr:
		return text
	}
	return "(" + text + ")"
}

// workersRewrite returns the rewrite of a fixed pool of workers draining a
// channel that a loop over a slice fills, or nil.
func (p *pass) workersRewrite(f *fan) (*rewrite, string) {
	info := p.TypesInfo
	n := p.workerCount(f.loop)
	if n == nil {
		return nil, "the workers are not started by a counted loop"
	}
	// The worker: [defer wg.Done()] for j := range jobs { ... } [wg.Done()].
	var rng *ast.RangeStmt
	var strip []ast.Stmt
	for _, st := range f.lit.Body.List {
		switch {
		case f.shape != "wg.Go" && p.isDone(st, p.inner(f, f.group)):
			strip = append(strip, st)
		case rng == nil:
			r, ok := st.(*ast.RangeStmt)
			if !ok {
				return nil, p.line(st, "the worker does more than drain the channel with one range loop")
			}
			rng = r
		default:
			return nil, p.line(st, "the worker does more than drain the channel with one range loop")
		}
	}
	if rng == nil || !p.drainsChan(rng, f) {
		return nil, "the worker's range loop uses its variables in another way"
	}
	itemText, ok := p.itemBody(rng.Body)
	if !ok {
		return nil, "the worker's range loop returns, breaks out or jumps"
	}
	if why := p.spawnsOnly(f); why != "" {
		return nil, why
	}
	// The producer and the close, before or after the workers; the wait.
	var skips []ast.Expr
	isProducer := func(st ast.Stmt) (*ast.RangeStmt, bool) {
		pr, ok := st.(*ast.RangeStmt)
		if ok {
			skips, ok = p.sliceProducer(pr, f.ch)
		}
		return pr, ok
	}
	isClose := func(st ast.Stmt) bool { return p.closes(st, f.ch) }
	var producer *ast.RangeStmt
	var first ast.Stmt
	l, at := f.list, f.at
	switch {
	case at+3 < len(l) && f.wait == at+3 && isClose(l[at+2]):
		pr, ok := isProducer(l[at+1])
		if !ok {
			return nil, "the producer is not one range loop over a slice that sends each item"
		}
		producer, first = pr, f.list[f.at]
	case f.wait == at+1:
		k := at - 1
		for k >= 0 && p.declares(l[k], f.group) {
			k-- // var wg sync.WaitGroup between the close and the workers
		}
		if k < 1 || !isClose(l[k]) {
			return nil, "the producer is not one range loop over a slice that sends each item, then closes the channel"
		}
		pr, ok := isProducer(l[k-1])
		if !ok {
			return nil, "the producer is not one range loop over a slice that sends each item"
		}
		producer, first = pr, pr
	default:
		return nil, p.between(f)
	}
	es, ok := l[f.wait].(*ast.ExprStmt)
	if !ok || ast.Unparen(es.X) != f.call {
		return nil, "the Wait is part of a larger statement"
	}
	elem := info.TypeOf(producer.X).Underlying().(*types.Slice).Elem()
	if rng.Key != nil && !types.Identical(elem, info.TypeOf(rng.Key)) {
		return nil, "the worker's variable has another type than the items"
	}
	t, ok := p.typeString(elem)
	if !ok {
		return nil, "the item type names a package the file does not import"
	}
	source, why := p.filtered("par.Slice("+p.src(producer.X)+")", producer, t, skips, f)
	if why != "" {
		return nil, why
	}
	var remove []ast.Stmt
	declared := map[types.Object]bool{}
	for _, st := range l[:at] {
		if st == producer || isClose(st) {
			continue
		}
		switch {
		case st == f.closDecl:
			remove = append(remove, st)
		case p.declares(st, f.group) || p.declares(st, f.ch):
			lhs, _ := assignment(st)
			declared[p.objOf(lhs[0])] = true
			if st.Pos() < first.Pos() {
				remove = append(remove, st)
			}
		case st.Pos() > first.Pos():
			return nil, "statements between the producer and the workers would move"
		case p.mentions(st, f.group) || p.mentions(st, f.ch):
			return nil, "the channel or the group is used before the workers other than to declare it"
		}
	}
	if !declared[f.group] || !declared[f.ch] {
		return nil, "the channel or the group is not declared just for this loop"
	}
	for _, o := range []types.Object{f.group, f.ch} {
		if p.usedOutside(o, remove, first.Pos(), es.End()) {
			return nil, "the channel or the group is used outside the fan-out"
		}
	}
	return &rewrite{
		from:     first.Pos(),
		to:       es.End(),
		source:   source,
		params:   p.itemName(rng) + " " + t,
		body:     itemText,
		limit:    p.workerLimit(n),
		hasLimit: true,
		ioish:    p.ioish(rng.Body),
		remove:   remove,
	}, ""
}

// filtered returns source with a Filter that keeps the items the producer
// pr does not skip, where skips are its conditions for skipping (if c {
// continue }), written over pr's variable of type t. The conditions must
// read nothing that the workers or the loop change (safeRead), since the
// filter runs beside the workers as the producer did, on other goroutines.
func (p *pass) filtered(source string, pr *ast.RangeStmt, t string, skips []ast.Expr, f *fan) (string, string) {
	if len(skips) == 0 {
		return source, ""
	}
	var keep []string
	for _, c := range skips {
		if !p.safeRead(c, f, true) {
			return "", "the producer skips items by a condition that calls something or reads what the loop changes"
		}
		keep = append(keep, p.negate(c))
	}
	return fmt.Sprintf("%s.Filter(func(%s %s) bool { return %s })", source, p.src(pr.Value), t, strings.Join(keep, " && ")), ""
}

// negate returns the text of !c.
func (p *pass) negate(c ast.Expr) string {
	text := p.src(c)
	switch c := c.(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return strings.TrimPrefix(text, "!")
		}
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.CallExpr, *ast.ParenExpr:
		return "!" + text
	case *ast.BinaryExpr:
		// == and != only: the negation of an ordering is not the other
		// ordering for a NaN.
		if op, ok := map[token.Token]string{token.EQL: "!=", token.NEQ: "=="}[c.Op]; ok {
			return p.src(c.X) + " " + op + " " + p.src(c.Y)
		}
	}
	return "!(" + text + ")"
}

// chanRewrite returns the rewrite of a fixed pool of workers draining a
// channel that something else fills (a producer goroutine, the caller
// before the workers start, whoever passed the channel in): par.FromChan
// over the channel, which receives until it is closed, at most as many
// calls at once as there were workers. Go statements between the workers
// and the wait (a producer) stay, and the par call takes the wait's place
// after them; starting a goroutine does not wait for anything, so moving
// the workers' start after it changes nothing.
func (p *pass) chanRewrite(f *fan) (*rewrite, string) {
	info := p.TypesInfo
	n := p.workerCount(f.loop)
	if n == nil || f.lit == nil {
		return nil, ""
	}
	if t := info.TypeOf(n); t == nil || !types.Identical(types.Default(t), types.Typ[types.Int]) {
		return nil, "the worker count is not an int"
	}
	// The worker: [defer wg.Done()] for j := range ch { ... } [wg.Done()].
	var rng *ast.RangeStmt
	for _, st := range f.lit.Body.List {
		switch {
		case f.shape != "wg.Go" && !p.isGroup(f.group) && p.isDone(st, p.inner(f, f.group)):
		case rng == nil:
			r, ok := st.(*ast.RangeStmt)
			if !ok {
				return nil, p.line(st, "the worker does more than drain the channel with one range loop")
			}
			rng = r
		default:
			return nil, p.line(st, "the worker does more than drain the channel with one range loop")
		}
	}
	if rng == nil || !p.drainsChan(rng, f) {
		return nil, "the worker's range loop uses its variables in another way"
	}
	itemText, ok := p.itemBody(rng.Body)
	if !ok {
		return nil, "the worker's range loop returns, breaks out or jumps"
	}
	if p.isGroup(f.group) {
		return nil, "an errgroup worker that fails stops alone, where TryForEach would stop every call"
	}
	if why := p.spawnsOnly(f); why != "" {
		return nil, why
	}
	background := false
	for _, st := range f.list[f.at+1 : f.wait] {
		if _, ok := st.(*ast.GoStmt); !ok {
			background = true
		}
	}
	es, ok := f.list[f.wait].(*ast.ExprStmt)
	if !ok || ast.Unparen(es.X) != f.call {
		return nil, "the Wait is part of a larger statement"
	}
	t, why := p.chanItem(rng)
	if why != "" {
		return nil, why
	}
	// The group: declared for these workers alone.
	var remove []ast.Stmt
	declared := false
	for _, st := range f.list[:f.at] {
		specs := p.blockSpecs(st, f)
		switch {
		case st == f.closDecl:
			remove = append(remove, st)
		case p.declares(st, f.group):
			remove, declared = append(remove, st), true
		case len(specs) > 0:
			remove, declared = append(remove, specs...), true
		case p.addsWorkers(st, f.group, n) && !p.addsInLoop(f):
			remove = append(remove, st)
		case p.mentions(st, f.group):
			return nil, "the group is used before the workers other than to declare it"
		}
	}
	if !declared {
		return nil, "the group is not declared just for these workers"
	}
	if p.usedOutside(f.group, remove, f.list[f.at].Pos(), es.End()) {
		return nil, "the group is used outside the fan-out"
	}
	for _, st := range f.list[f.at+1 : f.wait] {
		if p.mentions(st, f.group) {
			return nil, "the group is used between the workers and the Wait"
		}
	}
	r := &rewrite{
		from:     f.list[f.at].Pos(),
		to:       es.End(),
		source:   "par.FromChan(" + p.src(rng.X) + ")",
		params:   p.itemName(rng) + " " + t,
		body:     itemText,
		limit:    p.workerLimit(n),
		hasLimit: true,
		ioish:    p.ioish(rng.Body),
		remove:   remove,
	}
	switch {
	case background:
		// The caller works between the workers and the Wait (a producer
		// loop): the par call runs in a goroutine in the loop's place,
		// and the Wait becomes a receive from the channel it closes.
		done := p.freeName("done", f.loop.Pos(), p.funcAt(f.loop.Pos()))
		if done == "" {
			return nil, "no name is free for the channel that says the work is done"
		}
		r.to, r.waitCall, r.background = f.loop.End(), f.call, done
	case f.wait > f.at+1:
		// The producers stay where they are; the loop goes and the par
		// call takes the Wait's place.
		r.to, r.waitCall = f.list[f.at+1].Pos(), f.call
	}
	return r, ""
}

// addsWorkers reports whether st is wg.Add(n), n the text of the worker
// count: the Add for every worker at once, whose Done each worker calls.
func (p *pass) addsWorkers(st ast.Stmt, wg types.Object, n ast.Expr) bool {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := ast.Unparen(es.X).(*ast.CallExpr)
	return ok && len(call.Args) == 1 && p.isCall(call, wg, "Add") && p.src(call.Args[0]) == p.src(n)
}

// addsInLoop reports whether f's loop body adds to its WaitGroup.
func (p *pass) addsInLoop(f *fan) bool {
	found := false
	ast.Inspect(loopBody(f.loop), func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && p.isCall(call, f.group, "Add") {
			found = true
		}
		return !found
	})
	return found
}

// backgroundable reports whether f's rewrite may run the par call in a
// goroutine of its own, beside what the caller does between the loop and
// the Wait: a pool of workers on a WaitGroup draining a channel
// (chanRewrite), or a goroutine per item joined by counted receives
// (countedSpawned).
func (p *pass) backgroundable(f *fan) bool {
	if f.sel || f.under != nil || f.deferred || f.waitIn != "" || f.waitGo {
		return false
	}
	return f.shape == "workers" && f.group != nil && !p.isGroup(f.group) || f.shape == "counted" && f.ch == nil
}

// funcAt returns the body of the innermost function, declared or a
// literal, of f's file at pos.
func (p *pass) funcAt(pos token.Pos) *ast.BlockStmt {
	path, _ := astutil.PathEnclosingInterval(p.file, pos, pos)
	for _, n := range path {
		switch n := n.(type) {
		case *ast.FuncLit:
			return n.Body
		case *ast.FuncDecl:
			return n.Body
		}
	}
	return nil
}

// pure reports whether e is a variable or a field path, which the rewrite
// may evaluate at another time.
func pure(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return pure(e.X)
	}
	return false
}

// isCall reports whether call is obj.name(...).
func (p *pass) isCall(call *ast.CallExpr, obj types.Object, name string) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name && obj != nil && p.objOf(sel.X) == obj
}

// isDone reports whether st is wg.Done() or defer wg.Done().
func (p *pass) isDone(st ast.Stmt, wg types.Object) bool {
	var call *ast.CallExpr
	switch st := st.(type) {
	case *ast.DeferStmt:
		call = st.Call
	case *ast.ExprStmt:
		call, _ = ast.Unparen(st.X).(*ast.CallExpr)
	}
	return call != nil && len(call.Args) == 0 && p.isCall(call, wg, "Done")
}

func isDefer(st ast.Stmt) bool {
	_, ok := st.(*ast.DeferStmt)
	return ok
}

// isRelease reports whether st is <-sem, or defer func() { <-sem }().
func (p *pass) isRelease(st ast.Stmt, sem types.Object) bool {
	recv := func(e ast.Expr) bool {
		u, ok := ast.Unparen(e).(*ast.UnaryExpr)
		return ok && u.Op == token.ARROW && p.objOf(u.X) == sem
	}
	switch st := st.(type) {
	case *ast.ExprStmt:
		return recv(st.X)
	case *ast.DeferStmt:
		lit, ok := ast.Unparen(st.Call.Fun).(*ast.FuncLit)
		if !ok || len(lit.Body.List) != 1 {
			return false
		}
		es, ok := lit.Body.List[0].(*ast.ExprStmt)
		return ok && recv(es.X)
	}
	return false
}

// hasReturn reports whether body returns (outside nested functions).
func hasReturn(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		}
		return !found
	})
	return found
}

// doneReturns returns the statements wg.Done() of body that come right
// before a return, in the same block, and whether every return of body
// (outside function literals) has one.
func (p *pass) doneReturns(body *ast.BlockStmt, wg types.Object) ([]ast.Stmt, bool) {
	var dones []ast.Stmt
	every := true
	check := func(list []ast.Stmt) {
		for k, st := range list {
			if _, ok := st.(*ast.ReturnStmt); !ok {
				continue
			}
			if k > 0 && !isDefer(list[k-1]) && p.isDone(list[k-1], wg) {
				dones = append(dones, list[k-1])
			} else {
				every = false
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BlockStmt:
			check(n.List)
		case *ast.CaseClause:
			check(n.Body)
		case *ast.CommClause:
			check(n.Body)
		}
		return true
	})
	return dones, every
}

// hasBranch reports whether body has a return, break, continue or goto
// (outside nested functions): a worker's loop body with one would mean
// something else as a callback.
func hasBranch(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt, *ast.BranchStmt:
			found = true
		}
		return !found
	})
	return found
}

// mentions reports whether n uses obj.
func (p *pass) mentions(n ast.Node, obj types.Object) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && p.TypesInfo.ObjectOf(id) == obj {
			found = true
		}
		return !found
	})
	return found
}

// mentionsOutside reports whether n uses obj outside the statements skip.
func (p *pass) mentionsOutside(n ast.Node, obj types.Object, skip []ast.Stmt) bool {
	nodes := make([]ast.Node, len(skip))
	for i, st := range skip {
		nodes[i] = st
	}
	return p.mentionsBut(n, obj, nodes...)
}

// mentionsBut reports whether n uses obj outside the nodes skip.
func (p *pass) mentionsBut(n ast.Node, obj types.Object, skip ...ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		for _, s := range skip {
			if n == s {
				return false
			}
		}
		if id, ok := n.(*ast.Ident); ok && p.TypesInfo.ObjectOf(id) == obj {
			found = true
		}
		return !found
	})
	return found
}

// setup reports whether st sets up f's group or semaphore: declares it, or
// calls Add or SetLimit on the group.
func (p *pass) setup(st ast.Stmt, f *fan) bool {
	if f.group != nil && p.declares(st, f.group) || (f.sem != nil && p.declares(st, f.sem)) {
		return true
	}
	// g = errgroup.WithNErrs(n), for a group declared without a value.
	if as, ok := st.(*ast.AssignStmt); ok && f.group != nil && as.Tok == token.ASSIGN && len(as.Lhs) == 1 && len(as.Rhs) == 1 && p.objOf(as.Lhs[0]) == f.group && declValue(p.TypesInfo, as.Rhs[0]) {
		return true
	}
	if es, ok := st.(*ast.ExprStmt); ok && f.group != nil {
		if call, ok := ast.Unparen(es.X).(*ast.CallExpr); ok && len(call.Args) == 1 {
			return p.isCall(call, f.group, "Add") || p.isCall(call, f.group, "SetLimit")
		}
	}
	return false
}

// blockSpecs returns, where st is a var block (var ( wg sync.WaitGroup; mu
// sync.Mutex )) whose lines declare f's group or semaphore alone and whose
// other lines do not mention them, those lines, each as a declaration of
// its own that the rewrite removes; else nil.
func (p *pass) blockSpecs(st ast.Stmt, f *fan) []ast.Stmt {
	ds, ok := st.(*ast.DeclStmt)
	if !ok {
		return nil
	}
	gd, ok := ds.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR || !gd.Lparen.IsValid() {
		return nil
	}
	var specs []ast.Stmt
	for _, one := range specStmts(st) {
		spec := one.(*ast.DeclStmt).Decl.(*ast.GenDecl).Specs[0]
		if names := spec.(*ast.ValueSpec).Names; len(names) > 1 && (f.gctx == nil || p.TypesInfo.Defs[names[1]] != f.gctx) {
			// g, ctx = errgroup.WithContext(...) where the analysis did
			// not take ctx for the group's: the line stays.
			if f.group != nil && p.mentions(spec, f.group) || f.sem != nil && p.mentions(spec, f.sem) {
				return nil
			}
			continue
		}
		switch {
		case f.group != nil && p.declares(one, f.group), f.sem != nil && p.declares(one, f.sem):
			specs = append(specs, one)
		case f.group != nil && p.mentions(spec, f.group), f.sem != nil && p.mentions(spec, f.sem):
			return nil
		}
	}
	return specs
}

// declares reports whether st declares obj and nothing else the code
// after it could use, other than errgroup's context.
func (p *pass) declares(st ast.Stmt, obj types.Object) bool {
	lhs, rhs := assignment(st)
	if len(lhs) == 0 || p.objOf(lhs[0]) != obj {
		return false
	}
	if as, ok := st.(*ast.AssignStmt); ok && as.Tok != token.DEFINE {
		return false
	}
	for _, e := range rhs {
		if !declValue(p.TypesInfo, e) {
			return false
		}
	}
	return len(lhs) == 1 || len(lhs) == 2 && len(rhs) == 1
}

// declValue reports whether e is a value that makes a group or channel
// with no other effect.
func declValue(info *types.Info, e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		return len(e.Elts) == 0
	case *ast.UnaryExpr:
		return e.Op == token.AND && declValue(info, e.X)
	case *ast.CallExpr:
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok && (id.Name == "make" || id.Name == "new") {
			return true
		}
		if fn := goparapi.Callee(info, e); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "golang.org/x/sync/errgroup" && fn.Name() == "WithContext" {
			return true
		}
		if t := info.TypeOf(e); t != nil && isIndexed(t) {
			return true // minio's errgroup.WithNErrs(n), and its WithConcurrency(c)
		}
	}
	return false
}

// declaredIn reports whether one of stmts declares obj.
func (p *pass) declaredIn(obj types.Object, stmts []ast.Stmt) bool {
	for _, st := range stmts {
		if p.declares(st, obj) {
			return true
		}
	}
	return false
}

// usedElsewhere reports whether obj is used outside the loop of f, its
// wait statement and the setup statements removed.
func (p *pass) usedElsewhere(obj types.Object, f *fan, removed []ast.Stmt) bool {
	return p.usedOutside(obj, removed, f.loop.Pos(), f.list[f.wait].End())
}

// reused returns, where obj, f's group, is used after f's Wait only from
// a statement of f's block that assigns it afresh (g = errgroup.WithNErrs(n),
// for the next fan-out) on, and declared by one of removed with a value
// (g := ...), the declaration that keeps its name for that statement:
// var g T. Otherwise "".
func (p *pass) reused(obj types.Object, f *fan, removed []ast.Stmt) string {
	decl := p.declOf(obj, removed)
	as, ok := decl.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 {
		return ""
	}
	for _, st := range f.list[f.wait+1:] {
		if !p.mentions(st, obj) {
			continue
		}
		again, ok := st.(*ast.AssignStmt)
		if !ok || again.Tok != token.ASSIGN || len(again.Lhs) != 1 || p.objOf(again.Lhs[0]) != obj || p.mentions(again.Rhs[0], obj) {
			return ""
		}
		if p.usedOutside(obj, removed, f.loop.Pos(), f.list[len(f.list)-1].End()) {
			return ""
		}
		t, ok := p.typeString(obj.Type())
		if !ok {
			return ""
		}
		return "var " + obj.Name() + " " + t
	}
	return ""
}

// declOf returns the statement of stmts that declares obj, or nil.
func (p *pass) declOf(obj types.Object, stmts []ast.Stmt) ast.Stmt {
	for _, st := range stmts {
		if p.declares(st, obj) {
			return st
		}
	}
	return nil
}

// usedOutside reports whether obj is used outside [from, to) and the
// statements removed.
func (p *pass) usedOutside(obj types.Object, removed []ast.Stmt, from, to token.Pos) bool {
	for id, o := range p.TypesInfo.Uses {
		if o != obj || (from <= id.Pos() && id.Pos() < to) {
			continue
		}
		in := false
		for _, st := range removed {
			if st.Pos() <= id.Pos() && id.Pos() < st.End() {
				in = true
			}
		}
		if !in {
			return true
		}
	}
	return false
}

// gctxUsedOutside reports whether errgroup's context is used after its
// declaration anywhere but in the goroutine's function.
func (p *pass) gctxUsedOutside(f *fan, check ast.Stmt) bool {
	var decl ast.Stmt
	for _, st := range f.list[:f.at] {
		for _, one := range specStmts(st) {
			lhs, _ := assignment(one)
			if len(lhs) == 2 && p.objOf(lhs[1]) == f.gctx {
				decl = st
			}
		}
	}
	if decl == nil {
		return true
	}
	for id, o := range p.TypesInfo.Uses {
		if o != f.gctx || id.Pos() < decl.End() {
			continue
		}
		if !(f.lit.Pos() <= id.Pos() && id.Pos() < f.lit.End()) && !(check != nil && check.Pos() <= id.Pos() && id.Pos() < check.End()) {
			return true
		}
	}
	return false
}

// stopsOnCtx reports whether st, a statement of f's loop body, is a check
// that stops the loop once errgroup's context (or its parent) is done,
// before the next task starts:
//
//	select {
//	case <-ctx.Done():
//		break loop
//	default:
//	}
//
// The rewrite drops it where the group has a limit and a context: tasks
// then start as others end, and WithContext(parent) with
// TryForEachContext starts no item once the parent is done or a call has
// failed. Without a limit every task starts at once, and the check sees
// the context before any has run.
func (p *pass) stopsOnCtx(st *ast.SelectStmt, f *fan) bool {
	if f.limit == nil || f.gctx == nil || f.gctx.Name() == "_" || f.label == nil || f.under != nil || len(st.Body.List) != 2 || loopBody(f.loop).List[0] != st {
		return false
	}
	var done, dflt bool
	for _, c := range st.Body.List {
		cc := c.(*ast.CommClause)
		if cc.Comm == nil {
			dflt = len(cc.Body) == 0
			continue
		}
		ctx := p.doneOf(cc.Comm)
		if len(cc.Body) != 1 || ctx == nil || ctx != f.gctx && ctx != p.objOf(f.pctx) {
			return false
		}
		br, ok := cc.Body[0].(*ast.BranchStmt)
		done = ok && br.Tok == token.BREAK && br.Label != nil && br.Label.Name == f.label.Label.Name
	}
	return done && dflt
}

// bodyWithout returns the source of body, braces included, without the
// statements strip (each with its line, where it is alone on it).
func (p *pass) bodyWithout(body *ast.BlockStmt, strip []ast.Stmt) string {
	tf := p.Fset.File(body.Pos())
	content, _ := p.ReadFile(tf.Name())
	start, end := tf.Offset(body.Lbrace), tf.Offset(body.Rbrace)+1
	var cuts [][2]int
	for _, st := range strip {
		e := p.deleteLine(st)
		from, to := tf.Offset(e.Pos), tf.Offset(e.End)
		// A statement that shares its line (go func() { defer wg.Done(); work(x) }()):
		// its semicolon and the space after go with it.
		if to < len(content) && content[to] == ';' {
			to++
			for to < len(content) && content[to] == ' ' {
				to++
			}
		}
		cuts = append(cuts, [2]int{from, to})
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i][0] < cuts[j][0] })
	var b strings.Builder
	at := start
	for _, c := range cuts {
		b.Write(content[at:c[0]])
		at = c[1]
	}
	b.Write(content[at:end])
	return b.String()
}

// typeString writes t as the file may name it, or ok false if it names a
// package the file does not import.
func (p *pass) typeString(t types.Type) (string, bool) {
	ok := true
	s := types.TypeString(t, func(pkg *types.Package) string {
		if pkg == p.Pkg {
			return ""
		}
		name := goparapi.PackageName(p.file, pkg)
		if name == "" {
			ok = false
		}
		return name
	})
	return s, ok
}

// ioPackages are the packages whose calls block on I/O.
var ioPackages = map[string]bool{
	"net": true, "net/http": true, "os": true, "os/exec": true, "io": true, "io/ioutil": true,
	"io/fs": true, "database/sql": true, "net/rpc": true, "bufio": true, "path/filepath": true,
}

// ioish reports whether body looks like it blocks: it uses a context, calls
// into a package of I/O, or sleeps, itself or in a function or method of this
// package that it calls.
func (p *pass) ioish(body *ast.BlockStmt) bool {
	return p.blocks(body, map[*types.Func]bool{})
}

// blocks is ioish, with the functions of this package already looked at.
func (p *pass) blocks(body *ast.BlockStmt, seen map[*types.Func]bool) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if o := p.TypesInfo.Uses[n]; o != nil {
				if t := o.Type(); t != nil && types.TypeString(t, nil) == "context.Context" {
					found = true
				}
				if o.Pkg() != nil && ioPackages[o.Pkg().Path()] {
					if _, isPkg := o.(*types.PkgName); !isPkg {
						found = true
					}
				}
				if fn, ok := o.(*types.Func); ok {
					fn = fn.Origin()
					if fn.Pkg() != nil && fn.Pkg().Path() == "time" && fn.Name() == "Sleep" {
						found = true
					} else if fd := p.funcs[fn]; fd != nil && !seen[fn] {
						seen[fn] = true
						found = p.blocks(fd.Body, seen)
					}
				}
			}
		}
		return !found
	})
	return found
}

// mayFail reports whether body returns anything but nil (outside nested
// functions).
func (p *pass) mayFail(body *ast.BlockStmt) bool {
	fails := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) != 1 || !p.TypesInfo.Types[n.Results[0]].IsNil() {
				fails = true
			}
		}
		return !fails
	})
	return fails
}

// waitFirst returns, where the statement st evaluates the Wait call wait
// only on some paths or after another call or receive (the loop would then
// run later, after what it evaluates first: in
// err1, err2 := g1.Wait(), g2.Wait(), g2's loop after g1's Wait), what
// stops the rewrite; "" where wait is the first thing st does.
func (p *pass) waitFirst(st ast.Stmt, wait *ast.CallExpr) string {
	// The path from the call up to st.
	enclosing, _ := astutil.PathEnclosingInterval(p.file, wait.Pos(), wait.End())
	var path []ast.Node
	for _, n := range enclosing {
		path = append(path, n)
		if n == st {
			break
		}
	}
	if len(path) == 0 || path[0] != wait || path[len(path)-1] != st {
		return "the Wait is not where the rewrite expects it"
	}
	for k := len(path) - 1; k > 0; k-- {
		n, child := path[k], path[k-1]
		switch n := n.(type) {
		case *ast.ExprStmt, *ast.AssignStmt, *ast.ReturnStmt, *ast.DeclStmt, *ast.GenDecl, *ast.ValueSpec,
			*ast.CallExpr, *ast.ParenExpr, *ast.UnaryExpr, *ast.StarExpr, *ast.SelectorExpr,
			*ast.IndexExpr, *ast.CompositeLit, *ast.KeyValueExpr, *ast.TypeAssertExpr:
		case *ast.BinaryExpr:
			if (n.Op == token.LAND || n.Op == token.LOR) && child == n.Y {
				return "the Wait runs only when the left side of " + n.Op.String() + " lets it"
			}
		case *ast.IfStmt:
			if child != n.Init && child != n.Cond {
				return "the Wait runs only on some paths (in an if's branch)"
			}
		case *ast.SwitchStmt:
			if child != n.Init && child != n.Tag {
				return "the Wait runs only on some paths (in a switch's case)"
			}
		case *ast.RangeStmt:
			if child != n.X {
				return "the Wait runs only on some paths, or more than once"
			}
		default:
			return "the Wait runs only on some paths, or more than once"
		}
	}
	// Anything evaluated before it.
	var before ast.Node
	ast.Inspect(st, func(n ast.Node) bool {
		if n == nil || before != nil || n.Pos() >= wait.Pos() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if n.End() <= wait.Pos() {
				if tv := p.TypesInfo.Types[n.Fun]; !tv.IsType() && !tv.IsBuiltin() {
					before = n
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && n.End() <= wait.Pos() {
				before = n
			}
		}
		return before == nil
	})
	if before != nil {
		text := p.src(before)
		if len(text) > 40 {
			text = text[:40] + "..."
		}
		return "the Wait comes after `" + text + "` in its statement, and the loop would run after that instead of before it"
	}
	return ""
}

// labelUsed reports whether a branch statement names l's label.
func (p *pass) labelUsed(l *ast.LabeledStmt) bool {
	obj := p.TypesInfo.Defs[l.Label]
	for id, o := range p.TypesInfo.Uses {
		if o == obj && id != l.Label && (id.Pos() < l.Pos() || id.Pos() >= l.End()) {
			return true
		}
	}
	return false
}

// spawnsOnly says why a worker pool's loop cannot be rewritten, or "" if it
// can: its body holds only the spawn (Add(1) and the go statement, or the
// group's Go), and the worker takes no parameters.
func (p *pass) spawnsOnly(f *fan) string {
	for _, st := range loopBody(f.loop).List {
		switch st := st.(type) {
		case *ast.GoStmt:
		case *ast.ExprStmt:
			call, ok := ast.Unparen(st.X).(*ast.CallExpr)
			if !ok || !(p.isCall(call, f.group, "Add") || p.isCall(call, f.group, "Go")) {
				return p.more(st)
			}
		default:
			return p.more(st)
		}
	}
	if len(f.lit.Type.Params.List) != 0 {
		return "the worker takes parameters"
	}
	if v := p.counter(f.loop); v != nil && p.mentions(f.lit.Body, v) {
		return "the worker uses the loop's counter " + v.Name() + " (a slot of its own, say), which par's callbacks have no counterpart of"
	}
	return ""
}

// counter returns the variable of a counted loop (for k := range n, or
// for k := 0; k < n; k++), or nil.
func (p *pass) counter(loop ast.Stmt) types.Object {
	var id ast.Expr
	switch l := loop.(type) {
	case *ast.RangeStmt:
		id = l.Key
	case *ast.ForStmt:
		if as, ok := l.Init.(*ast.AssignStmt); ok && len(as.Lhs) == 1 {
			id = as.Lhs[0]
		}
	}
	if id, ok := id.(*ast.Ident); ok && id.Name != "_" {
		return p.TypesInfo.ObjectOf(id)
	}
	return nil
}

// seqElem returns T where sig is func(yield func(T) bool), the signature
// of an iterator of one value, or nil.
func seqElem(sig *types.Signature) types.Type {
	if sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return nil
	}
	yield, ok := sig.Params().At(0).Type().Underlying().(*types.Signature)
	if !ok || yield.Params().Len() != 1 || yield.Results().Len() != 1 || !types.Identical(yield.Results().At(0).Type(), types.Typ[types.Bool]) {
		return nil
	}
	return yield.Params().At(0).Type()
}

// itemBody returns the source of body, a worker's range loop body, as the
// body of a par callback for one item: each continue of that loop becomes
// a return. ok is false where the body returns, breaks out of the loop,
// jumps, or names a label.
func (p *pass) itemBody(body *ast.BlockStmt) (text string, ok bool) {
	var conts []*ast.BranchStmt
	var stack []ast.Node
	ok = true
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			ok = false
		case *ast.BranchStmt:
			loops, breaks := 0, 0 // enclosing loops, and the statements a break ends, inside body
			for _, s := range stack {
				switch s.(type) {
				case *ast.ForStmt, *ast.RangeStmt:
					loops++
				case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
					breaks++
				}
			}
			switch {
			case n.Label != nil || n.Tok == token.GOTO:
				ok = false
			case n.Tok == token.CONTINUE && loops == 0:
				conts = append(conts, n)
			case n.Tok == token.BREAK && loops == 0 && breaks == 0:
				ok = false
			}
		}
		stack = append(stack, n)
		return ok
	})
	text = p.src(body)
	for i := len(conts) - 1; i >= 0; i-- {
		from, to := int(conts[i].Pos()-body.Pos()), int(conts[i].End()-body.Pos())
		text = text[:from] + "return" + text[to:]
	}
	return text, ok
}

// workerResource returns, where f's goroutines are workers (the loop counts
// them, and each loops over items) that each make a resource and release it
// at their end (x := ...; defer x.Close()), that resource's name; else "".
// A rewrite over the worker count would only restate the workers, and one
// over the items has no place for the release.
func (p *pass) workerResource(f *fan) string {
	if f.body == nil || f.shape == "workers" || p.count(f.loop) == nil {
		return ""
	}
	loops := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.GoStmt:
			return false
		case *ast.ForStmt, *ast.RangeStmt:
			loops = true
		}
		return !loops
	})
	if !loops {
		return ""
	}
	for _, st := range f.body.List {
		d, ok := st.(*ast.DeferStmt)
		if !ok {
			continue
		}
		sel, ok := ast.Unparen(d.Call.Fun).(*ast.SelectorExpr)
		if !ok {
			continue
		}
		if id := identOf(sel.X); id != nil {
			if v, ok := p.TypesInfo.Uses[id].(*types.Var); ok && f.body.Pos() <= v.Pos() && v.Pos() < f.body.End() {
				return id.Name
			}
		}
	}
	return ""
}
