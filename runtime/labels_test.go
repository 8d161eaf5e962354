package runtime

import (
	"context"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/labels"
)

// wearing reports whether the calling goroutine wears want, and what it
// wears otherwise.
func wearing(t *testing.T, what string, want labels.Set) {
	t.Helper()
	switch got := labels.Current(); got {
	case want:
	case labels.Set{}:
		t.Errorf("%s wore no labels; want its maker's", what)
	default:
		t.Errorf("%s wore other labels than its maker's", what)
	}
}

// TestPromotedFuncWearsPublishersLabels: b of a JoinLazy, promoted to the
// worker that frees up while a runs, wears the labels of the goroutine
// that published it, not the worker's (none).
func TestPromotedFuncWearsPublishersLabels(t *testing.T) {
	if !labels.Carried {
		t.Skip("built with gopar_nolabels")
	}
	p := newPool(t, 2)
	release := busyWorkers(t, p)
	pprof.Do(context.Background(), pprof.Labels("req", "promoted"), func(context.Context) {
		mine := labels.Current()
		started := make(chan struct{})
		p.JoinLazy(func() {
			release(0)
			select {
			case <-started:
			case <-time.After(10 * time.Second):
				t.Error("b did not start within 10 s while a worker was free")
			}
		}, func() {
			wearing(t, "a promoted func", mine)
			close(started)
		})
	})
	if s := p.Stats(); s.Promoted == 0 {
		t.Fatalf("b was not promoted: %+v", s)
	}
	// The worker took its own labels (none) back.
	p.Do(func(w *Worker) {})
	done := make(chan struct{})
	p.Go(func(*Worker) { wearing(t, "a worker after a promoted func", labels.Set{}); close(done) })
	<-done
}

// TestForeignTaskWearsSpawnersLabels: a task spawned into a scope by a
// goroutine that is not the scope's worker, under labels of its own, wears
// them whoever runs it: here the scope's waiter, every worker being busy,
// which offers it from its own deque.
func TestForeignTaskWearsSpawnersLabels(t *testing.T) {
	if !labels.Carried {
		t.Skip("built with gopar_nolabels")
	}
	p := newPool(t, 2)
	busyWorkers(t, p) // released at cleanup, after the scope
	p.Scope(func(s Scope) {
		spawned := make(chan struct{})
		go pprof.Do(context.Background(), pprof.Labels("req", "spawner"), func(context.Context) {
			mine := labels.Current()
			s.Spawn(func(Scope) { wearing(t, "a foreign task", mine) })
			close(spawned)
		})
		<-spawned
	})
}
