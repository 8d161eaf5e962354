package fanouts

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

type server struct{ stop chan struct{} }

// Serve runs until Shutdown.
func (s *server) Serve() error {
	<-s.stop
	return nil
}

func (s *server) Shutdown(ctx context.Context) error {
	close(s.stop)
	return ctx.Err()
}

// 40: two Waits in one statement. The servers run until their shutdowns,
// which the second loop starts: moving that loop into the second operand,
// after serving.Wait(), would never stop them.
func egTwoWaits(parent context.Context, servers []*server) (error, error) {
	var serving errgroup.Group
	for _, s := range servers { // want `fan-out: an errgroup loop whose goroutines wait \(.s.Serve\(\).\), so they may need to run all at once; .*; no fix: a rewrite would cap how many run at once`
		serving.Go(func() error { return s.Serve() })
	}
	stopping, ctx := errgroup.WithContext(parent)
	for _, s := range servers { // want "fan-out: an errgroup loop; .*; no fix: the Wait comes after `serving.Wait\\(\\)` in its statement"
		stopping.Go(func() error { return s.Shutdown(ctx) })
	}
	err1, err2 := serving.Wait(), stopping.Wait()
	return err1, err2
}

// 41: a Wait that runs only on one path.
func egWaitInBranch(ctx context.Context, urls []string, only bool) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, u := range urls { // want `fan-out: an errgroup loop; .*; no fix: the Wait runs only on some paths \(in an if's branch\)`
		g.Go(func() error { return check(ctx, u) })
	}
	if only {
		return g.Wait()
	}
	return nil
}

// 42: a Wait after && (it runs only when the left side is true).
func egWaitAfterAnd(ctx context.Context, urls []string, only bool) bool {
	g, ctx := errgroup.WithContext(ctx)
	for _, u := range urls { // want `no fix: the Wait runs only when the left side of && lets it`
		g.Go(func() error { return check(ctx, u) })
	}
	return only && g.Wait() == nil
}

// 43: callbacks that wait on each other: each passes a token to the next,
// so all must run at once (on a pool of fewer goroutines they deadlock).
func wgRing(n int) {
	ring := make([]chan int, n+1)
	for i := range ring {
		ring[i] = make(chan int)
	}
	go func() { ring[0] <- 0; <-ring[n] }()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ { // want "fan-out: a goroutine per item with a sync.WaitGroup whose goroutines wait \\(`<-ring\\[i\\]`\\), so they may need to run all at once; .*; no fix: a rewrite would cap how many run at once"
		wg.Add(1)
		go func() {
			defer wg.Done()
			ring[i+1] <- <-ring[i] + 1
		}()
	}
	wg.Wait()
}

// 44: long-lived servers, one per listener: each runs until stopped.
func wgServers(servers []*server) {
	var wg sync.WaitGroup
	for _, s := range servers { // want `whose goroutines wait \(.s.Serve\(\).\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Serve()
		}()
	}
	wg.Wait()
}

// 45: a goroutine per item that polls until told to stop.
func wgPoll(names []string, stop chan struct{}) {
	var wg sync.WaitGroup
	for _, name := range names { // want `whose goroutines wait \(a select\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					work(name)
				}
			}
		}()
	}
	wg.Wait()
}

type listener struct{}

func (listener) Close() error { return nil }

// Listen is a listener's constructor in another package, as net.Listen is.
func Listen(addr string) (listener, error) { return listener{}, nil }

// 46: a listener per address, each served until the caller stops them.
func egListeners(ctx context.Context, addrs []string) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, a := range addrs { // want `whose goroutines wait \(.Listen\(a\).\)`
		g.Go(func() error {
			l, err := Listen(a)
			if err != nil {
				return err
			}
			defer l.Close()
			return check(ctx, a)
		})
	}
	return g.Wait()
}

// instance is a module instance that serves the messages of its input
// until the input closes, as a WebAssembly dispatcher's instances do.
type instance struct{ in chan string }

// 47: a dispatcher: each instance's task serves its input until it closes,
// so every task must run at once (on a pool of fewer, the inputs that no
// task serves block their senders); its tasks also declare ctx again,
// which the rewrite's callback has as its parameter. No fix.
func egDispatcher(parent context.Context, insts []*instance) error {
	g, ctx := errgroup.WithContext(parent)
	for _, inst := range insts { // want `whose goroutines wait \(a range over the channel .inst.in.\), so they may need to run all at once; .*; no fix`
		g.Go(func() error {
			ctx := context.WithValue(ctx, keyURL{}, inst)
			for msg := range inst.in {
				if err := check(ctx, msg); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// cycSleeper sleeps between calls; update cuts its sleeps short.
type cycSleeper struct {
	mu    sync.Mutex
	cycle chan struct{}
	wait  time.Duration
}

// sleep waits s.wait, or less where the settings change meanwhile.
func (s *cycSleeper) sleep(ctx context.Context) {
	s.mu.Lock()
	cycle, wait := s.cycle, s.wait
	s.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
		return
	case <-cycle:
	}
}

// update changes the settings, and wakes its sleepers.
func (s *cycSleeper) update(wait time.Duration) {
	s.mu.Lock()
	close(s.cycle)
	s.cycle, s.wait = make(chan struct{}), wait
	s.mu.Unlock()
}

// 120: each task sleeps between items on a cycSleeper that the settings may
// wake (minio's dynamicSleeper): the timer ends the sleep, and no task
// closes the cycle channel, so it is not a wait on the other tasks.
func wgSleeper(ctx context.Context, s *cycSleeper, xs []string, out []int) {
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = work(x)
			s.sleep(ctx)
		}()
	}
	wg.Wait()
}

// 120b: the tasks themselves change the settings, which wakes the others:
// they wait on each other, and there is no fix.
func wgSleeperWoken(ctx context.Context, s *cycSleeper, xs []string) {
	var wg sync.WaitGroup
	for _, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup whose goroutines wait \\(a select in sleep\\)"
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.sleep(ctx)
			s.update(time.Duration(work(x)))
		}()
	}
	wg.Wait()
}

// 120c: a poll on a timer until a stop closes (the timer case goes round
// the loop again): the tasks run until stopped, and there is no fix.
func wgPollTimer(xs []string, p *poller) {
	var wg sync.WaitGroup
	for _, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup whose goroutines wait \\(a select\\)"
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-p.stop:
					return
				case <-time.After(time.Millisecond):
					work(x)
				}
			}
		}()
	}
	wg.Wait()
}

type poller struct{ stop chan struct{} }

// 121: each task checks a stop channel between its steps, in a select with
// a default inside a counted loop: the check never waits, so a fix.
func wgCheckStop(xs []string, p *poller, out []int) {
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < len(x); j++ {
				select {
				case <-p.stop:
					return
				default:
					out[i] += work(x[j:])
				}
			}
		}()
	}
	wg.Wait()
}

// scan checks stop between the items that next gives, without waiting.
func scan(stop <-chan struct{}, next func() bool) int {
	n := 0
	for next() {
		select {
		case <-stop:
			return n
		default:
		}
		n++
	}
	return n
}

// 121b: the check is in a function the task calls, in a loop over an
// iterator: a fix.
func wgCheckStopCalled(stop <-chan struct{}, nexts []func() bool, out []int) {
	var wg sync.WaitGroup
	for i, next := range nexts { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = scan(stop, next)
		}()
	}
	wg.Wait()
}

// 121c: a select with a default in a loop whose condition only its case
// changes polls until the stop closes: the tasks run until stopped, and
// there is no fix.
func wgPollFlag(xs []string, p *poller) {
	var wg sync.WaitGroup
	for _, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup whose goroutines wait \\(a select\\)"
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := false
			for !done {
				select {
				case <-p.stop:
					done = true
				default:
					work(x)
				}
			}
		}()
	}
	wg.Wait()
}
