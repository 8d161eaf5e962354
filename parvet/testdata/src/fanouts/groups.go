package fanouts

import "sync"

// group is a task group of the program's own, in the manner of minio's
// errgroup: Go takes the task and its index, Wait returns every error.
type group struct {
	wg   sync.WaitGroup
	errs []error
}

func (g *group) Go(f func() error, i int) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		g.errs[i] = f()
	}()
}

func (g *group) Wait() []error {
	g.wg.Wait()
	return g.errs
}

// limiter bounds goroutines in the manner of minio's workers.Workers: Take
// before the go statement, Give in the goroutine, Wait for all.
type limiter struct{ ch chan struct{} }

func (l *limiter) Take() { l.ch <- struct{}{} }
func (l *limiter) Give() { <-l.ch }
func (l *limiter) Wait() {
	for range cap(l.ch) {
		l.ch <- struct{}{}
	}
}

// 80: a group of the program's own, one task per item.
func ownGroup(disks []string) []error {
	g := &group{errs: make([]error, len(disks))}
	for i := range disks { // want `fan-out: a goroutine per item on a group with Go and Wait methods \(group\); .*; no fix: the group is group, whose Go and Wait the rewrite cannot carry over`
		g.Go(func() error {
			return validate(disks[i])
		}, i)
	}
	return g.Wait()
}

// 81: a limiter of the program's own, taken before the go statement and
// given back in the goroutine.
func ownLimiter(items []string, out *sync.Map) {
	wk := &limiter{ch: make(chan struct{}, 4)}
	for _, it := range items { // want `fan-out: a goroutine per item on a group with Go and Wait methods \(limiter\); .*; no fix: the group is limiter, whose Go and Wait the rewrite cannot carry over`
		wk.Take()
		go func() {
			defer wk.Give()
			out.Store(it, work(it))
		}()
	}
	wk.Wait()
}

// notOwnGroup: a Go method on a type without Wait is no group.
type runner struct{}

func (runner) Go(f func() error, i int) { go f() }

func noWait(items []string) {
	var r runner
	for i := range items {
		r.Go(func() error { return validate(items[i]) }, i)
	}
}
