package runtime

import (
	"context"
	"runtime/trace"
	"strconv"

	"github.com/gopar-dev/gopar/internal/labels"
	"github.com/gopar-dev/gopar/internal/latch"
)

// job is a unit of work in a deque or the injector.
//
// Ownership: the goroutine that pushes a job writes fn before the push (an
// atomic store of the deque slot publishes it). The goroutine that pops or
// steals it writes panicked before setting done. After done is set, only the
// waiter touches the job again (to read panicked and to recycle it); the
// runner touches nothing but done's atomic fields.
type job struct {
	// fr is the job's node in the fork tree; its parent is the frame that
	// forked it (see frame.go).
	fr frame
	fn func(*Worker)
	// task is a Scope task's, which runs in place of fn; fr.scope is its
	// scope (see Worker.newTask).
	task     scopeTask
	done     latch.Latch
	panicked *Panic
	offered  bool // shared by JoinLazy: counted in idleState.offered until it starts
	helper   bool // offered by open: dropped if still in the deque when the region ends
	// labels are the pprof labels of the goroutine that made the job,
	// which the goroutine that runs it wears meanwhile (see execute).
	labels labels.Set
}

// newJob takes a job from w's free list, or allocates one.
func (w *Worker) newJob(fn func(*Worker)) *job {
	j := w.freeJob()
	j.fn = fn
	j.labels = labels.Current()
	w.at.fork()
	j.fr.setParent(w.at)
	return j
}

// newTask is newJob for t, a task of the scope st. Spawned by the scope's
// body or by another of its tasks, running in its own frame (own), its
// parent is the scope's frame, not the spawner's (WAITING.md, "Scope
// tasks"): so a task that spawns tasks has no children, and its job is
// recycled. Spawned from anywhere else (a Join's b, a loop's body, a nested
// Scope), it is a child of the frame running, as any fork is.
func (w *Worker) newTask(st *scopeState, t scopeTask, own bool) *job {
	j := w.freeJob()
	j.task = t
	j.fr.scope = st
	j.labels = labels.Current()
	parent := &st.fr
	if !own {
		parent = w.at
		parent.fork()
	}
	j.fr.setParent(parent)
	return j
}

// freeJob takes a job from w's free list, or allocates one.
func (w *Worker) freeJob() *job {
	if n := len(w.free); n > 0 {
		j := w.free[n-1]
		w.free = w.free[:n-1]
		return j
	}
	return new(job)
}

// recycle returns a finished job to w's free list. The job must not be
// reachable by any other goroutine except as a stale pointer that a failed
// steal discards.
func (w *Worker) recycle(j *job) {
	// A job that jobs were forked under stays theirs: the garbage collector
	// frees it once none of them needs it (see frame).
	if len(w.free) >= maxFree || j.fr.forked {
		return
	}
	// Field by field: a runner that has just set done may still be reading
	// done's waiter, atomically. A job that was never stolen has an untouched
	// latch, and the common case skips the two stores.
	j.fn, j.fr.scope, j.task, j.panicked = nil, nil, nil, nil
	j.fr.detached, j.offered, j.helper, j.labels = false, false, false, labels.Set{}
	if j.done.IsSet() {
		j.done.Reset()
	}
	w.free = append(w.free, j)
}

// execute runs a job found in a deque or the injector and signals its
// waiter.
func (w *Worker) execute(j *job) {
	w.stats.executed.Add(1)
	w.started(j)
	// The job's code runs in the job's frame: what it forks descends from
	// it, and the JoinFunc calls pending below are sealed (see seal).
	// Deferred, so that a Goexit unwinding through the frames below finds
	// their frame again.
	r := region{w.at, w.seal()}
	w.at = &j.fr
	defer w.leave(r)
	// The job runs under its maker's pprof labels, as a goroutine started
	// with go would; the runner's own come back when it ends, however it
	// ends.
	if prev, changed := labels.Wear(j.labels); changed {
		defer labels.Apply(prev)
	}
	if trace.IsEnabled() {
		w.executeTraced(j)
		return
	}
	w.executeJob(j)
}

// executeTraced runs j inside a runtime/trace region named after the
// worker, so that go tool trace shows which worker ran what.
func (w *Worker) executeTraced(j *job) {
	kind := "gopar.worker"
	if !w.isPool {
		kind = "gopar.guest"
	}
	trace.WithRegion(context.Background(), kind+"#"+strconv.Itoa(w.index), func() { w.executeJob(j) })
}

func (w *Worker) executeJob(j *job) {
	if j.fr.detached {
		// Nobody waits for a detached job, so a panic has nowhere to go
		// but up: it crashes the program, as in a go statement.
		if st := j.fr.scope; st != nil {
			st.run(w, j.task)
		} else {
			j.fn(w)
		}
		// Dropped even if j is kept for its children: they need only
		// its frame.
		j.fn, j.fr.scope, j.task = nil, nil, nil
		w.recycle(j)
		return
	}
	// The waiter must learn how j ended, even if it ended the goroutine
	// with runtime.Goexit: then the deferred function records it.
	returned := false
	defer func() {
		if !returned {
			j.panicked = unwinding(recover())
			j.done.Set()
		}
	}()
	j.fn(w)
	returned = true
	j.done.Set()
}

// started is called once for every job, by whoever runs it, before it runs:
// a job that JoinLazy offered no longer counts in idleState.offered.
func (w *Worker) started(j *job) {
	if j.offered {
		w.pool.idle.offerTaken()
	}
}

// call runs f as this worker and returns what it panicked with, if anything.
// A runtime.Goexit in f does not return here: the caller's frame keeps its
// obligations in a deferred function of its own (see goexit.go).
func (w *Worker) call(f func(*Worker)) (p *Panic) {
	returned := false
	defer func() {
		if !returned {
			p = unwinding(recover())
		}
	}()
	f(w)
	returned = true
	return nil
}
