// Package runtime is a sequential stub of gopar's runtime package: the
// worker pool's fork-join API.
package runtime

// Pool stands for gopar's worker pool.
type Pool struct{}

// Worker stands for a participant of a pool.
type Worker struct{}

// Scope stands for a scope of spawned tasks.
type Scope struct{}

// Panic is a recovered panic.
type Panic struct{ Value any }

func Default() *Pool                       { return &Pool{} }
func New(workers int) (*Pool, error)       { return &Pool{}, nil }
func (p *Pool) Do(f func(w *Worker))       { f(&Worker{}) }
func (p *Pool) Go(fn func(w *Worker))      { fn(&Worker{}) }
func (p *Pool) Join(a, b func(*Worker))    { a(&Worker{}); b(&Worker{}) }
func (p *Pool) Scope(body func(s Scope))   { body(Scope{}) }
func (p *Pool) Close() error               { return nil }
func (w *Worker) Join(a, b func(*Worker))  { a(w); b(w) }
func (w *Worker) Scope(body func(s Scope)) { body(Scope{}) }
func (s Scope) Spawn(fn func(s Scope))     { fn(s) }
func JoinFunc[A, R any](w *Worker, f func(*Worker, A) R, a, b A) (ra, rb R) {
	return f(w, a), f(w, b)
}
