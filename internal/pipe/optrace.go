package pipe

// Operations under runtime/trace: while a trace is being recorded, each
// operation is a task of its own, under the task of its context if it has
// one (Config.Context), and each participant's run of it is a region of
// that task on the goroutine that runs it, both named after the operation
// (gopar.Sum, gopar.ForEach ...). go tool trace then shows, for a request
// traced as a task, which operations it ran, on which goroutines, and for
// how long. Nothing of this runs while no trace is recorded: Run tests
// trace.IsEnabled once per operation.

import (
	"context"
	"path"
	goruntime "runtime"
	"runtime/trace"
	"strings"
)

// opTask is a traced operation's task: the context that carries it, for
// its regions, and their name.
type opTask struct {
	ctx  context.Context
	name string
	task *trace.Task
}

// startOp starts the task of an operation whose context is ctx (nil:
// none), named after the function of par that the calling goroutine runs
// (opName). Its caller ends it (end) once the operation has returned.
func startOp(ctx context.Context) *opTask {
	if ctx == nil {
		ctx = context.Background()
	}
	name := "gopar." + opName()
	ctx, task := trace.NewTask(ctx, name)
	return &opTask{ctx: ctx, name: name, task: task}
}

// end ends t's task.
func (t *opTask) end() { t.task.End() }

// runTraced is Run while a trace is recorded: the loop as a task of its
// own (startOp). Every goroutine's part in it is a region of the task:
// the caller's inline phase (runPool) and each participant's run
// (participate).
func runTraced(cfg Config, lo, hi int, r Reducer[any]) any {
	t := startOp(cfg.Context)
	defer t.end()
	cfg.task = t
	return observe(cfg, lo, hi, r)
}

// region starts the region of one goroutine's part in the traced
// operation t, which its caller ends (t is not nil).
func (t *opTask) region() *trace.Region { return trace.StartRegion(t.ctx, t.name) }

// apiDir and engineDir are the source directories of par, whose functions
// users call, and of the engine below it (internal/), as this build
// records them: a traced operation is named after the outermost function
// of par on the stack of the goroutine that starts it. Directories, not
// function names: a closure of par inlined into its caller bears the
// caller's name, but par's file.
var apiDir, engineDir = func() (string, string) {
	_, file, _, _ := goruntime.Caller(0) // .../internal/pipe/optrace.go
	internal := path.Dir(path.Dir(file))
	return path.Join(path.Dir(internal), "par"), internal + "/"
}()

// opName names the operation that the calling goroutine starts: the
// outermost function of par on its stack, below the first frame outside
// par and the engine (the user's, par's tests included), without its package, type or type
// arguments: "Sum" for par.Nums[...].Sum, "CountBy" for
// par.CountBy[...]. It walks the stack, so it runs only while a trace is
// recorded.
func opName() string {
	var pcs [64]uintptr
	n := goruntime.Callers(2, pcs[:])
	frames := goruntime.CallersFrames(pcs[:n])
	name := ""
	for {
		f, more := frames.Next()
		switch dir := path.Dir(f.File); {
		case dir == apiDir && !strings.HasSuffix(f.File, "_test.go"):
			if _, fn := splitFuncName(f.Function); fn != "" {
				name = fn
			}
		case strings.HasPrefix(dir, engineDir):
		default:
			// The first frame of the user's code: the name found is
			// the one.
			more = false
		}
		if !more {
			if name == "" {
				name = "operation"
			}
			return name
		}
	}
}

// splitFuncName splits a runtime function name such as
// "example.com/m/par.Iter[go.shape.int].Sum.func1" into its package path
// and the operation's name, "Sum": type arguments dropped, and of the
// dotted parts the last that is not a closure's.
func splitFuncName(full string) (pkg, name string) {
	var b strings.Builder
	depth := 0
	for _, c := range full {
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	s := b.String()
	slash := strings.LastIndexByte(s, '/')
	dot := strings.IndexByte(s[slash+1:], '.')
	if dot < 0 {
		return s, ""
	}
	pkg, rest := s[:slash+1+dot], s[slash+1+dot+1:]
	parts := strings.Split(rest, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		p := strings.TrimPrefix(strings.TrimSuffix(parts[i], ")"), "(*")
		if p != "" && !isClosureName(p) {
			return pkg, p
		}
	}
	return pkg, ""
}

// isClosureName reports whether a part of a function name names a closure
// ("func1", "gowrap2") or its number ("1").
func isClosureName(p string) bool {
	p = strings.TrimLeft(p, "abcdefghijklmnopqrstuvwxyz")
	if p == "" {
		return false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
