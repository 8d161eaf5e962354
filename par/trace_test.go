package par_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"runtime/trace"
	"slices"
	"strconv"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// traceEvent is one task or region event of a parsed execution trace.
type traceEvent struct {
	kind      string // TaskBegin or RegionBegin
	g         int    // the goroutine
	id, task  uint64 // a task's ID and Parent, a region's Task
	operation string // the Type
}

var traceLine = regexp.MustCompile(`G=(\d+) (TaskBegin|RegionBegin) .*?(?:ID=(\d+) Parent=(\d+)|Task=(\d+)) Type="([^"]*)"`)

// parseTrace reads the trace's task and region events with the go
// command's own parser (go tool trace -d=parsed).
func parseTrace(t *testing.T, data []byte) []traceEvent {
	t.Helper()
	gocmd, err := exec.LookPath("go")
	if err != nil {
		gocmd = filepath.Join(goruntime.GOROOT(), "bin", "go")
	}
	file := filepath.Join(t.TempDir(), "trace.out")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(gocmd, "tool", "trace", "-d=parsed", file).Output()
	if err != nil {
		t.Skipf("go tool trace cannot read the trace here: %v", err)
	}
	var evs []traceEvent
	for _, m := range traceLine.FindAllStringSubmatch(string(out), -1) {
		e := traceEvent{kind: m[2], operation: m[6]}
		e.g, _ = strconv.Atoi(m[1])
		if e.kind == "TaskBegin" {
			e.id, _ = strconv.ParseUint(m[3], 10, 64)
			e.task, _ = strconv.ParseUint(m[4], 10, 64)
		} else {
			e.task, _ = strconv.ParseUint(m[5], 10, 64)
		}
		evs = append(evs, e)
	}
	return evs
}

// TestOperationsTracedUnderTheRequestsTask: a request traced as a task runs
// operations with its context; in the trace, each is a task of its own,
// named after the operation, whose parent is the request's task, and its
// regions, of the same name, lie on the goroutines that ran it: more than
// one for a loop long enough to go parallel, where there is more than one
// processor (on one, the worker a loop wakes runs only once the caller
// gives the processor up, and these loops end first).
func TestOperationsTracedUnderTheRequestsTask(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("a trace is being recorded already")
	}
	n := 1 << 14 / race.Scale
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skip(err)
	}
	ctx, request := trace.NewTask(context.Background(), "request")
	par.Range(0, n).WithContext(ctx).Map(func(i int) int { return int(burnItem(i)) }).Sum()
	par.Fold(par.Range(0, n).WithContext(ctx), func() int { return 0 },
		func(a, i int) int { return a + int(burnItem(i)) }, func(a, b int) int { return a + b })
	par.Range(0, 64).WithContext(ctx).Blocking(4).ForEach(func(i int) { burn(uint64(i)) })
	for range par.Map(par.FromSeq(slices.Values(make([]int, n))).WithContext(ctx), func(i int) int {
		return int(burnItem(i))
	}).Values() {
	}
	request.End()
	trace.Stop()

	evs := parseTrace(t, buf.Bytes())
	var requestID uint64
	for _, e := range evs {
		if e.kind == "TaskBegin" && e.operation == "request" {
			requestID = e.id
		}
	}
	if requestID == 0 {
		t.Fatalf("no request task among %d events", len(evs))
	}
	for _, want := range []struct {
		op       string
		parallel bool
	}{{"gopar.Sum", true}, {"gopar.Fold", true}, {"gopar.ForEach", true}, {"gopar.Values", true}} {
		var ids []uint64
		for _, e := range evs {
			if e.kind == "TaskBegin" && e.operation == want.op {
				if e.task != requestID {
					t.Errorf("%s's task has parent %d, not the request's task %d", want.op, e.task, requestID)
				}
				ids = append(ids, e.id)
			}
		}
		if len(ids) == 0 {
			var names []string
			for _, e := range evs {
				if e.kind == "TaskBegin" {
					names = append(names, e.operation)
				}
			}
			t.Errorf("no task named %s among %q", want.op, names)
			continue
		}
		goroutines := map[int]bool{}
		for _, e := range evs {
			if e.kind == "RegionBegin" && slices.Contains(ids, e.task) {
				if e.operation != want.op {
					t.Errorf("a region of %s's task is named %q", want.op, e.operation)
				}
				goroutines[e.g] = true
			}
		}
		if len(goroutines) == 0 || (want.parallel && goruntime.GOMAXPROCS(0) > 1 && len(goroutines) < 2) {
			t.Errorf("%s's regions lie on %d goroutines", want.op, len(goroutines))
		}
	}
}
