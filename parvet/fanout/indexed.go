package fanout

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// indexing is what the rewrite of an indexed group needs beside the
// loop's: minio's errgroup (github.com/minio/pkg/.../sync/errgroup), whose
// WithNErrs(n) keeps one error per index, whose Go(f, i) runs f on a
// goroutine of its own and keeps its error at i (where i < n), and whose
// Wait returns the n errors. The rewrite keeps them in a slice of its own:
//
//	errs := make([]error, n)
//	par.Range(0, n).ForEach(func(i int) { errs[i] = f() })
type indexing struct {
	n     ast.Expr // WithNErrs's count
	limit ast.Expr // WithConcurrency's limit, if any
	index ast.Expr // Go's index
	name  string   // the errors' slice; "" where the caller drops them (g.Wait() as a statement)
	// assigned: the errors' slice is a variable declared before (errs =
	// g.Wait()), which the rewrite assigns.
	assigned bool
}

// isIndexed reports whether t is minio's errgroup.Group, through a pointer.
func isIndexed(t types.Type) bool {
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Name() != "Group" || named.Obj().Pkg() == nil {
		return false
	}
	path := named.Obj().Pkg().Path()
	return strings.HasPrefix(path, "github.com/minio/pkg") && strings.HasSuffix(path, "/sync/errgroup")
}

// indexedGroup returns f's indexed group as its declaration before the
// loop makes it (g := errgroup.WithNErrs(n), or with .WithConcurrency(c)),
// or nil.
func (p *pass) indexedGroup(f *fan) *indexing {
	if f.group == nil || !isIndexed(f.group.Type()) {
		return nil
	}
	// The last assignment before the loop: g := errgroup.WithNErrs(n),
	// or g = ... where the group was declared without a value.
	for _, st := range slices.Backward(f.list[:f.at]) {
		as, ok := st.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || p.objOf(as.Lhs[0]) != f.group {
			continue
		}
		ix := &indexing{}
		call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return nil
		}
		if sel, isSel := ast.Unparen(call.Fun).(*ast.SelectorExpr); isSel && sel.Sel.Name == "WithConcurrency" {
			ix.limit = call.Args[0]
			if call, ok = ast.Unparen(sel.X).(*ast.CallExpr); !ok || len(call.Args) != 1 {
				return nil
			}
		}
		if sel, isSel := ast.Unparen(call.Fun).(*ast.SelectorExpr); !isSel || sel.Sel.Name != "WithNErrs" {
			return nil
		}
		ix.n = call.Args[0]
		return ix
	}
	return nil
}

// indexedSpawn reports whether call is g.Go(func() error { ... }, i), f's
// spawn in an indexed group, and keeps i.
func (p *pass) indexedSpawn(call *ast.CallExpr, f *fan, ix *indexing) bool {
	if ix == nil || !p.isCall(call, f.group, "Go") || len(call.Args) != 2 || !p.isWorker(call.Args[0], f) {
		return false
	}
	ix.index = call.Args[1]
	return true
}

// covers reports whether WithNErrs's count is the loop's number of items:
// len(xs) for a range over xs, or the count of a counted loop; every index
// then has its slot, as in the group.
func (p *pass) covers(f *fan, ix *indexing, over ast.Expr) bool {
	n := p.src(ix.n)
	if over != nil {
		return n == "len("+p.src(over)+")"
	}
	count := p.count(f.loop)
	return count != nil && p.src(count) == n
}

// indexedWait names the errors' slice: the variable that the Wait's
// statement declares (errs := g.Wait()), which the rewrite then declares
// in its place, or a fresh one that takes the Wait call's place.
func (p *pass) indexedWait(f *fan, r *rewrite, ix *indexing) string {
	if why := p.waitFirst(f.list[f.wait], f.call); why != "" {
		return why
	}
	r.from, r.to, r.waitCall = f.list[f.at].Pos(), f.list[f.wait].Pos(), f.call
	if es, ok := f.list[f.wait].(*ast.ExprStmt); ok && ast.Unparen(es.X) == f.call {
		r.to, r.waitCall = es.End(), nil // the errors are dropped
		return ""
	}
	if as, ok := f.list[f.wait].(*ast.AssignStmt); ok && (as.Tok == token.DEFINE || as.Tok == token.ASSIGN) && len(as.Lhs) == 1 && len(as.Rhs) == 1 && ast.Unparen(as.Rhs[0]) == f.call {
		if id := identOf(as.Lhs[0]); id != nil && id.Name != "_" {
			// errs := g.Wait(): the rewrite declares errs instead; errs =
			// g.Wait(): it assigns errs a slice of its own.
			ix.name, ix.assigned = id.Name, as.Tok == token.ASSIGN
			r.to, r.waitCall = as.End(), nil
			return ""
		}
	}
	if ix.name = p.freeName("errs", f.loop.Pos(), f.list[f.wait]); ix.name == "" {
		return "the rewrite finds no name for the errors"
	}
	return ""
}

// indexedLimit returns WithConcurrency's limit as Blocking takes it: c
// where it is a constant above 0, else max(c, 1) (c <= 0 sets no limit,
// where Blocking(c) panics: the rewrite then runs one item at a time, the
// same calls with the same results).
func (p *pass) indexedLimit(ix *indexing) string {
	if tv := p.TypesInfo.Types[ix.limit]; tv.Value != nil && constant.Sign(tv.Value) > 0 {
		return p.src(ix.limit)
	}
	return "max(" + p.src(ix.limit) + ", 1)"
}

// indexedBody returns the callback's body: the task's error kept at the
// item's index, errs[i] = f(), or errs[i] = x where the task is return x;
// where the caller drops the errors, the call f() (or x, where x is a
// call) alone.
func (p *pass) indexedBody(f *fan, ix *indexing, key string) string {
	call := p.src(f.lit) + "()"
	if l := f.lit.Body.List; len(l) == 1 && len(f.lit.Type.Results.List[0].Names) == 0 {
		if ret, ok := l[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
			if _, isCall := ast.Unparen(ret.Results[0]).(*ast.CallExpr); isCall || ix.name != "" {
				call = p.src(ret.Results[0])
			}
		}
	}
	if ix.name == "" {
		// A task that ends with return nil, and returns nowhere else:
		// its statements as they are.
		l := f.lit.Body.List
		if last := l[len(l)-1]; isReturnNil(last) && !hasReturn(&ast.BlockStmt{List: l[:len(l)-1]}) {
			return p.bodyWithout(f.lit.Body, []ast.Stmt{last})
		}
		return "{\n" + call + "\n}"
	}
	return "{\n" + ix.name + "[" + key + "] = " + call + "\n}"
}
