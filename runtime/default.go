package runtime

import (
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

var (
	// defaultMu orders the making of default pools; defaultPool is the
	// current one.
	defaultMu   sync.Mutex
	defaultPool atomic.Pointer[Pool]
	// inlineDefault is what Default returns inside a testing/synctest
	// bubble until the default pool has been made outside any bubble.
	inlineDefault atomic.Pointer[Pool]
)

// WorkersEnv is the environment variable that sizes the default pool.
const WorkersEnv = "GOPAR_WORKERS"

// Default returns the shared pool, starting it on first use. It has as many
// workers as the GOPAR_WORKERS environment variable says, or GOMAXPROCS if
// that variable is unset (at most MaxWorkers). An invalid value (not an
// integer from 1 to MaxWorkers) is reported once on standard error and the
// GOMAXPROCS default is used.
//
// Sized by GOMAXPROCS, the default pool follows it, up and down: once
// GOMAXPROCS has changed (runtime.GOMAXPROCS, go test -cpu, or the Go
// runtime's own update to a container's CPU limit) and one of the pool's
// workers has next run out of work, Default returns a new pool of the new
// size. An operation runs to its end on the pool it started on, so nothing
// is lost or run twice; the earlier pool is not closed, stays usable by
// whoever holds it, and its workers retire once idle, as every pool's do.
// GOPAR_WORKERS pins the size, and a pool made by New keeps the size it was
// given. Each pool has its own Stats.
//
// The default pool cannot be closed. Its worker goroutines run while there
// is work and retire once idle for a tenth of a second, so that a
// goroutine-leak checker (go.uber.org/goleak, which retries for longer than
// that) finds none of them after the last operation has returned, with no
// ignore rule. A spare goroutine (docs/design.md, "Where the engine
// waits") runs only while a worker waits, and exits at its next job
// boundary after.
//
// Inside a testing/synctest bubble, until a goroutine outside any bubble
// has made the default pool, Default returns a pool of the same size that
// runs every operation on the calling goroutine: the default pool is never
// made inside a bubble, which it outlives (nor replaced there: a bubble goes
// on using the one made outside).
func Default() *Pool {
	// Following GOMAXPROCS costs Default one load of a flag (stale) that only
	// changes then; the workers read GOMAXPROCS as they run out of work, where
	// a read costs nobody anything.
	if p := defaultPool.Load(); p != nil && !p.stale.Load() {
		return p
	}
	return makeDefault()
}

// makeDefault is Default's first call, any call inside a bubble before it,
// and a call after GOMAXPROCS changed (the current pool is stale).
func makeDefault() *Pool {
	if inBubble() {
		if p := defaultPool.Load(); p != nil {
			return p
		}
		if p := inlineDefault.Load(); p != nil {
			return p
		}
		n, _ := workersFromEnv(os.Getenv(WorkersEnv))
		p := inlinePool(n)
		p.isDflt = true
		inlineDefault.CompareAndSwap(nil, p)
		return inlineDefault.Load()
	}
	defaultMu.Lock()
	defer defaultMu.Unlock()
	old := defaultPool.Load()
	if old != nil && !old.stale.Load() {
		return old // made or replaced by another caller meanwhile
	}
	env := os.Getenv(WorkersEnv)
	n, err := workersFromEnv(env)
	if err != nil && old == nil {
		fmt.Fprintf(os.Stderr, "gopar: %v; using GOMAXPROCS=%d workers\n", err, n)
	}
	p := makePool(n)
	p.isDflt = true
	p.follows = env == "" || err != nil
	defaultPool.Store(p)
	return p
}

// noticeProcs is a pool worker's look at GOMAXPROCS, as it runs out of
// work, and every lookEvery jobs: a default pool that follows GOMAXPROCS
// and no longer has its size is marked stale, and Default replaces it.
func (w *Worker) noticeProcs() {
	w.sinceLook = 0
	w.pool.noticeProcs()
}

// noticeProcs is Worker.noticeProcs's look.
func (p *Pool) noticeProcs() {
	if !p.follows || p.stale.Load() {
		return
	}
	if min(goruntime.GOMAXPROCS(0), MaxWorkers) != p.nWorkers {
		p.stale.Store(true)
	}
}

// workersFromEnv parses GOPAR_WORKERS; on error it returns GOMAXPROCS (at
// most MaxWorkers).
func workersFromEnv(v string) (int, error) {
	procs := min(goruntime.GOMAXPROCS(0), MaxWorkers)
	if v == "" {
		return procs, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxWorkers {
		return procs, fmt.Errorf("%s=%q is not an integer from 1 to %d", WorkersEnv, v, MaxWorkers)
	}
	return n, nil
}
