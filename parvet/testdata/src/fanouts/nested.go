package fanouts

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// compactParts runs a fork-join of its own: its goroutines report to a
// WaitGroup that it declares, and its Wait waits on them alone.
func compactParts(s string) int {
	parts := make([]int, len(s))
	var wg sync.WaitGroup
	for i := range len(s) { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[i] = int(s[i])
		}()
	}
	wg.Wait()
	return len(parts)
}

// writeChildren runs an errgroup of its own.
func writeChildren(s string) error {
	var g errgroup.Group
	for i := range 2 { // want `fan-out: an errgroup loop`
		g.Go(func() error { return check(nil, s[i:]) })
	}
	return g.Wait()
}

// 102: each task runs a fork-join of its own (a callee's WaitGroup and
// errgroup, declared there): its Wait is not on the other tasks, so the
// fan-out gets a fix.
func nestedJoins(xs []string) {
	var wg sync.WaitGroup
	for _, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			compactParts(x)
			_ = writeChildren(x)
		}()
	}
	wg.Wait()
}

// 102b: each task waits on a channel that it makes and that only its own
// goroutine sends on: a fix.
func nestedChan(xs []string, out []int) {
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := make(chan int, 1)
			go func() { done <- work(x) }()
			out[i] = <-done
		}()
	}
	wg.Wait()
}

// 102c: the task's channel is a copy of one the tasks share: a task may
// wait for another's send, so no fix.
func nestedSharedChan(xs []string, shared chan int) {
	var wg sync.WaitGroup
	for _, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup whose goroutines wait \\(`<-ch`\\).*no fix: a rewrite would cap how many run at once"
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch := shared
			ch <- work(x)
			<-ch
		}()
	}
	wg.Wait()
}

// 102d: the task's channel is registered where the other tasks find it:
// no fix.
func nestedRegistered(xs []string, reg *sync.Map) {
	var wg sync.WaitGroup
	for _, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup whose goroutines wait \\(`<-mine`\\).*no fix: a rewrite would cap how many run at once"
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make(chan int)
			reg.Store(x, mine)
			<-mine
		}()
	}
	wg.Wait()
}

// sleeper sleeps, cut short by a context or a change of its cycle.
type sleeper struct{ cycle chan struct{} }

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	case <-s.cycle:
	}
}

// handOff sends its result to a goroutine of its own, a send that a
// context may cancel, and closes the channel when it returns.
func handOff(ctx context.Context, s string) int {
	ch := make(chan int)
	defer closeInt(ch)
	go func() {
		for n := range ch {
			_ = n
		}
	}()
	select {
	case ch <- work(s):
	case <-ctx.Done():
	}
	return len(s)
}

func closeInt(ch chan int) { close(ch) }

// 107: each task sleeps in a select with a timer, which also ends on a
// receive from another channel. A loop around such a select may poll for a
// stop, so a receive from a channel that is not the task's own counts as a
// wait: no fix.
func nestedSleep(ctx context.Context, xs []string, s *sleeper) {
	var wg sync.WaitGroup
	for _, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup whose goroutines wait \\(a select in Sleep\\)"
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Sleep(ctx, time.Millisecond)
			_ = work(x)
		}()
	}
	wg.Wait()
}

// 107b: each task sends to a goroutine of its own in a select that a
// context cancels: a fix.
func nestedHandOff(ctx context.Context, xs []string, out []int) {
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = handOff(ctx, x)
		}()
	}
	wg.Wait()
}

// 107c: each task sends on a channel the caller drains only after the
// Wait, in a select that a context cancels: the tasks wait on the caller,
// so no fix.
func nestedSendShared(ctx context.Context, xs []string, results chan int) {
	var wg sync.WaitGroup
	for _, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup whose goroutines wait \\(a select\\).*no fix: a rewrite would cap how many run at once"
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case results <- work(x):
			case <-ctx.Done():
			}
		}()
	}
	wg.Wait()
}

type peer struct{ name string }

// ServerInfo asks the peer for its state: a call that returns, not a
// server.
func (p *peer) ServerInfo() string { return p.name }

// 110: a task per peer that calls ServerInfo, which is not a server's
// Serve: a fix.
func peersInfo(peers []*peer, out []string) {
	var wg sync.WaitGroup
	for i, p := range peers { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = p.ServerInfo()
		}()
	}
	wg.Wait()
}

// queue takes operations when it has room, and drops them otherwise.
type queue struct{ ops chan string }

func (q *queue) offer(op string) {
	select {
	case q.ops <- op:
	default:
	}
}

// 110b: each task offers to a shared queue in a select with a default,
// which never waits: a fix.
func nestedOffer(xs []string, q *queue) {
	var wg sync.WaitGroup
	for _, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			q.offer(x)
		}()
	}
	wg.Wait()
}
