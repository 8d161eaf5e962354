// Command observe profiles and traces a server that uses gopar, as one
// would a server that fans out by hand: a handler ranks 20,000 candidates
// per request with par.Fold under the request's pprof labels and trace
// task, while a background job sums with par under labels of its own.
// Every callback wears its caller's labels on whichever goroutine runs it,
// so the CPU profile splits the work by request and by job; and each
// operation is a task under its request's in the execution trace.
//
//	go run ./examples/observe
//	go tool pprof -tags $TMPDIR/observe/cpu.pprof   # the work by label
//	go tool trace $TMPDIR/observe/trace.out         # User-defined tasks: rank, gopar.Fold
//
// A request whose ranking runs past -slow has gopar call the handler's
// hook while it runs (WithSlow), which writes the last seconds of a
// runtime/trace.FlightRecorder to slow.trace, once: the trace of the
// moment things went slow, from a program that was not tracing on
// purpose (Go 1.25 or newer).
//
// It writes cpu.pprof, trace.out and slow.trace to -out (default:
// observe/ under the temporary directory).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// mix is the splitmix64 finalizer, the unit of work of gopar's benchmarks.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// score is a candidate's score for a user: a few microseconds of work.
func score(user, candidate int) uint64 {
	x := uint64(user)<<32 | uint64(candidate)
	for range 100 {
		x = mix(x)
	}
	return x
}

// top keeps the best scores seen, highest first.
type top []uint64

const keep = 10

func (t top) add(s uint64) top {
	if len(t) == keep && s <= t[keep-1] {
		return t
	}
	i := sort.Search(len(t), func(i int) bool { return t[i] < s })
	if len(t) < keep {
		t = append(t, 0)
	}
	copy(t[i+1:], t[i:])
	t[i] = s
	return t
}

func (t top) merge(u top) top {
	for _, s := range u {
		t = t.add(s)
	}
	return t
}

// rank is the handler: the best candidates for ?user=, ranked in
// parallel under the request's trace task and pprof labels, with the
// request's context (WithContext) so that the operation is a task under
// the request's, and stops if the client goes away. A ranking that runs
// past budget calls slow while it runs.
func rank(candidates int, budget time.Duration, slow func()) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		user, err := strconv.Atoi(r.FormValue("user"))
		if err != nil {
			http.Error(w, "user: "+err.Error(), http.StatusBadRequest)
			return
		}
		ctx, task := trace.NewTask(r.Context(), "rank")
		defer task.End()
		pprof.Do(ctx, pprof.Labels("handler", "rank"), func(ctx context.Context) {
			best := par.Fold(par.Range(0, candidates).WithContext(ctx).WithSlow(budget, slow),
				func() top { return make(top, 0, keep) },
				func(t top, c int) top { return t.add(score(user, c)) },
				top.merge)
			fmt.Fprintln(w, best[0])
		})
	}
}

// run serves requests from clients for d, beside a background job, while
// a CPU profile and an execution trace are recorded into dir, and a flight
// recorder for a request that runs past budget; it returns the requests
// served.
func run(dir string, clients, candidates int, d, budget time.Duration) (n int, err error) {
	fl, err := startFlight(dir)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, fl.stop()) }()
	srv := httptest.NewServer(rank(candidates, budget, fl.snapshot))
	defer srv.Close()
	cpu, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		return 0, err
	}
	defer cpu.Close()
	tr, err := os.Create(filepath.Join(dir, "trace.out"))
	if err != nil {
		return 0, err
	}
	defer tr.Close()
	if err := pprof.StartCPUProfile(cpu); err != nil {
		return 0, err
	}
	if err := trace.Start(tr); err != nil {
		pprof.StopCPUProfile()
		return 0, err
	}

	stop := make(chan struct{})
	var batch sync.WaitGroup
	batch.Add(1)
	go pprof.Do(context.Background(), pprof.Labels("job", "batch"), func(context.Context) {
		defer batch.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			par.Range(0, 1<<20).Map(func(i int) int { return int(mix(uint64(i)) >> 8) }).Sum()
		}
	})

	var served sync.WaitGroup
	var mu sync.Mutex
	requests, deadline := 0, time.Now().Add(d)
	var failure error
	for c := range clients {
		served.Add(1)
		go func() {
			defer served.Done()
			for time.Now().Before(deadline) {
				resp, err := http.Get(srv.URL + "?user=" + strconv.Itoa(c))
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				mu.Lock()
				if err != nil {
					failure = errors.Join(failure, err)
				} else {
					requests++
				}
				mu.Unlock()
			}
		}()
	}
	served.Wait()
	close(stop)
	batch.Wait()
	trace.Stop()
	pprof.StopCPUProfile()
	return requests, failure
}

func main() {
	out := flag.String("out", filepath.Join(os.TempDir(), "observe"), "directory for cpu.pprof and trace.out")
	d := flag.Duration("for", 3*time.Second, "how long to serve requests")
	budget := flag.Duration("slow", 50*time.Millisecond, "a ranking that runs longer writes slow.trace")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n, err := run(*out, 8, 20000, *d, *budget)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%d requests in %v, beside a background job\n", n, *d)
	fmt.Fprintf(&buf, "go tool pprof -tags %s\n", filepath.Join(*out, "cpu.pprof"))
	fmt.Fprintf(&buf, "go tool trace %s\n", filepath.Join(*out, "trace.out"))
	if _, err := os.Stat(filepath.Join(*out, "slow.trace")); err == nil {
		fmt.Fprintf(&buf, "go tool trace %s   # a ranking past %v\n", filepath.Join(*out, "slow.trace"), *budget)
	}
	os.Stdout.Write(buf.Bytes())
}
