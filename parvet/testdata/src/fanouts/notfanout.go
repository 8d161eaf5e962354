package fanouts

import (
	"context"
	"net"
	"sync"
)

func handle(c net.Conn) { c.Close() }

// A server's accept loop: no wait, not a fan-out.
func serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go handle(c)
	}
}

// One goroutine, no loop.
func single(wg *sync.WaitGroup) {
	wg.Add(1)
	go func() { defer wg.Done() }()
	wg.Wait()
}

// The wait is the caller's: not a fan-out of this function.
func startAll(words []string, wg *sync.WaitGroup) {
	for _, w := range words {
		wg.Add(1)
		go func() { defer wg.Done(); work(w) }()
	}
}

// A loop that waits in each iteration: sequential.
func oneAtATime(words []string) {
	for _, w := range words {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); work(w) }()
		wg.Wait()
	}
}

// The goroutines signal before their work is done: the wait is for a first
// step only, and the goroutines go on after it.
func snapshot(shards []map[string]int) []chan string {
	chans := make([]chan string, len(shards))
	var wg sync.WaitGroup
	wg.Add(len(shards))
	for i, m := range shards {
		go func() {
			chans[i] = make(chan string, len(m))
			wg.Done()
			for k := range m {
				chans[i] <- k
			}
			close(chans[i])
		}()
	}
	wg.Wait()
	return chans
}

// The goroutines run until the caller tells them to stop, after the loop.
func hammer(n int, stop chan struct{}) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-stop
		}()
	}
	close(stop)
	wg.Wait()
}

// Forwarders per channel whose sends an endless loop serves: no count joins
// them (prometheus's zookeeper discovery).
func forwarders(ctx context.Context, ins []chan string, out chan string) {
	for _, in := range ins {
		go func(in chan string) {
			for s := range in {
				out <- s
			}
		}(in)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case s := <-out:
			_ = work(s)
		}
	}
}
