package beam

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	abeam "github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	// Prism, Beam's runner for one machine, runs the job in this process
	// when no -endpoint is given. Other runners register themselves when
	// their package is imported (x/beamx imports them all).
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
)

// Init initialises Beam (it calls Apache Beam's beam.Init). Call it at the
// start of main, after flag.Parse and before building a pipeline: in a Beam
// worker it does not return, since the worker runs the steps instead of
// main. Steps declared after Init are refused.
func Init() { abeam.Init() }

// Runner says where a Pipeline runs.
type Runner int

const (
	// Gopar runs the pipeline in this process, on gopar's default pool.
	Gopar Runner = iota + 1
	// Beam runs the pipeline as a Beam job on the runner named by Beam's
	// -runner flag (prism when the flag is empty).
	Beam
)

func (r Runner) String() string {
	switch r {
	case Gopar:
		return "gopar"
	case Beam:
		return "beam"
	}
	return fmt.Sprintf("Runner(%d)", int(r))
}

// RunnerFromFlags returns Beam when Beam's -runner flag names a Beam runner,
// and Gopar when the flag is empty or "gopar". Call it after flag.Parse.
func RunnerFromFlags() Runner {
	switch *runners.Runner {
	case "", "gopar":
		return Gopar
	}
	return Beam
}

// A Pipeline is a graph of steps, built with Create and the steps' Apply
// methods and run with Run. Nothing runs while it is built. A Pipeline runs
// once.
type Pipeline struct {
	nodes   []*node
	outputs []outputSink
	ran     bool
}

// NewPipeline returns an empty pipeline.
func NewPipeline() *Pipeline { return &Pipeline{} }

// node is one step of the graph, in both of its forms. Nodes are appended in
// the order they are built, which is an order in which each node's inputs
// come before it.
type node struct {
	pipeline *Pipeline
	name     string
	inputs   []*node
	// local computes the node's elements on gopar from its inputs'
	// elements (each a []T or a []KV[K, V]).
	local func(ctx context.Context, in []any) any
	// beam adds the node to a Beam graph.
	beam func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection
}

func (p *Pipeline) add(n *node) *node {
	if p == nil {
		panic("beam: nil *Pipeline: make one with NewPipeline")
	}
	if p.ran {
		panic("beam: a step added to a pipeline that has run: build a new Pipeline")
	}
	for _, in := range n.inputs {
		if in.pipeline != p {
			panic(fmt.Sprintf("beam: %s: its input belongs to another pipeline", n.name))
		}
	}
	n.pipeline = p
	p.nodes = append(p.nodes, n)
	return n
}

// A Collection is a bag of elements of type T: a slice in memory on gopar, a
// PCollection on Beam. Its elements have no order.
type Collection[T any] struct{ n *node }

// A Keyed collection is a bag of key-value pairs: on Beam a KV PCollection,
// grouped and combined by key by CountPerKey, SumPerKey and CombinePerKey.
type Keyed[K comparable, V any] struct{ n *node }

// KV is one pair of a Keyed collection, as Output returns it.
type KV[K comparable, V any] struct {
	Key   K
	Value V
}

// Create returns a collection of the elements of xs. On Beam they are
// embedded in the job (beam.CreateList), which suits inputs of up to a few
// megabytes; read larger ones with ReadText.
func Create[T any](p *Pipeline, xs []T) Collection[T] {
	mustCarry[T]("Create")
	xs = append([]T(nil), xs...) // the caller may reuse xs before Run
	return Collection[T]{p.add(&node{
		name:  "Create",
		local: func(context.Context, []any) any { return xs },
		beam: func(s abeam.Scope, _ []abeam.PCollection) abeam.PCollection {
			return abeam.CreateList(s.Scope("Create"), xs)
		},
	})}
}

// An Output holds a collection's elements after Run.
type Output[T any] struct {
	p      *Pipeline
	values []T
	done   bool
}

// Values returns the collection's elements, in no particular order. It
// panics if the pipeline has not run successfully.
func (o *Output[T]) Values() []T {
	if !o.done {
		panic("beam: Output.Values called before the pipeline ran successfully")
	}
	return o.values
}

// Value returns the only element of a collection of at most one, such as
// Sum's, Count's, Min's, Max's and Fold's, and true; or the zero T and
// false if the collection is empty (Min and Max of no elements). It panics
// if the collection holds more than one element or the pipeline has not
// run successfully.
func (o *Output[T]) Value() (T, bool) {
	vs := o.Values()
	switch len(vs) {
	case 0:
		var zero T
		return zero, false
	case 1:
		return vs[0], true
	}
	panic(fmt.Sprintf("beam: Output.Value on a collection of %d elements: use Values", len(vs)))
}

// outputSink is an Output seen from Run.
type outputSink interface {
	node() *node
	// inProcess reports whether the sink needs the Beam workers in this
	// process.
	inProcess() bool
	setLocal(v any) error
	beamSink(s abeam.Scope, col abeam.PCollection, id string)
	setBeam(vs []any)
}

type collectOutput[T any] struct {
	*Output[T]
	n *node
}

func (c collectOutput[T]) node() *node     { return c.n }
func (c collectOutput[T]) inProcess() bool { return true }
func (c collectOutput[T]) setLocal(v any) error {
	c.values, c.done = v.([]T), true
	return nil
}
func (c collectOutput[T]) beamSink(s abeam.Scope, col abeam.PCollection, id string) {
	abeam.ParDo0(s.Scope("Collect"), &collectFn{ID: id}, col)
}
func (c collectOutput[T]) setBeam(vs []any) {
	out := make([]T, len(vs))
	for i, v := range vs {
		out[i] = v.(T)
	}
	c.values, c.done = out, true
}

type collectKVOutput[K comparable, V any] struct {
	*Output[KV[K, V]]
	n *node
}

func (c collectKVOutput[K, V]) node() *node     { return c.n }
func (c collectKVOutput[K, V]) inProcess() bool { return true }
func (c collectKVOutput[K, V]) setLocal(v any) error {
	c.values, c.done = v.([]KV[K, V]), true
	return nil
}
func (c collectKVOutput[K, V]) beamSink(s abeam.Scope, col abeam.PCollection, id string) {
	abeam.ParDo0(s.Scope("Collect"), &collectKVFn{ID: id}, col)
}
func (c collectKVOutput[K, V]) setBeam(vs []any) {
	out := make([]KV[K, V], len(vs))
	for i, v := range vs {
		kv := v.([2]any)
		out[i] = KV[K, V]{kv[0].(K), kv[1].(V)}
	}
	c.values, c.done = out, true
}

// Collect returns an Output that holds c's elements once the pipeline has
// run. On Beam the elements travel back to this process, which only works
// when the workers run in it (Prism without -endpoint, the direct runner);
// on other runners Run refuses the pipeline: write the collection with
// WriteText instead.
func Collect[T any](c Collection[T]) *Output[T] {
	p := c.n.pipeline
	o := &Output[T]{p: p}
	p.addOutput(collectOutput[T]{o, c.n})
	return o
}

// CollectKV is Collect for a Keyed collection.
func CollectKV[K comparable, V any](c Keyed[K, V]) *Output[KV[K, V]] {
	p := c.n.pipeline
	o := &Output[KV[K, V]]{p: p}
	p.addOutput(collectKVOutput[K, V]{o, c.n})
	return o
}

func (p *Pipeline) addOutput(o outputSink) {
	if p.ran {
		panic("beam: Collect on a pipeline that has run: build a new Pipeline")
	}
	p.outputs = append(p.outputs, o)
}

// collected holds what the Collect steps of running Beam jobs received, by
// sink id.
var (
	collectedMu sync.Mutex
	collected   = map[string][]any{}
	sinkSeq     atomic.Int64
)

// collectFn is Collect's step on Beam. It runs in this process (Run checks
// that it will), so it can hand the elements over through memory.
type collectFn struct{ ID string }

func (f *collectFn) ProcessElement(x abeam.T) {
	collectedMu.Lock()
	collected[f.ID] = append(collected[f.ID], x)
	collectedMu.Unlock()
}

type collectKVFn struct{ ID string }

func (f *collectKVFn) ProcessElement(k abeam.X, v abeam.Y) {
	collectedMu.Lock()
	collected[f.ID] = append(collected[f.ID], [2]any{k, v})
	collectedMu.Unlock()
}

// Run runs the pipeline on r and fills its Outputs. On Gopar, ctx cancels
// the remaining work and Run returns ctx's error; a panic in a step is
// re-raised in the caller (a *runtime.Panic, as gopar's operations do). On
// Beam, Run returns the job's error, ctx cancels the job, and a panic in a
// step fails the job (after the runner's retries).
func (p *Pipeline) Run(ctx context.Context, r Runner) error {
	if p.ran {
		return errors.New("beam: the pipeline has already run: build a new Pipeline")
	}
	p.ran = true
	switch r {
	case Gopar:
		return p.runLocal(ctx)
	case Beam:
		return p.runBeam(ctx)
	}
	return fmt.Errorf("beam: Run: unknown runner %v: use Gopar, Beam or RunnerFromFlags()", r)
}

func (p *Pipeline) runLocal(ctx context.Context) error {
	results := make(map[*node]any, len(p.nodes))
	for _, n := range p.nodes {
		in := make([]any, len(n.inputs))
		for i, x := range n.inputs {
			in[i] = results[x]
		}
		r, err := runNode(ctx, n, in)
		if err != nil {
			return err
		}
		results[n] = r
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for _, o := range p.outputs {
		if err := o.setLocal(results[o.node()]); err != nil {
			return err
		}
	}
	return nil
}

// inProcessWorkers reports whether the Beam runner chosen by the flags runs
// the job's workers in this process, and if not, why not.
func inProcessWorkers() (bool, string) {
	name := beamRunnerName()
	switch strings.ToLower(name) {
	case "direct", "directrunner":
		return true, ""
	case "prism", "prismrunner":
		if e := *jobopts.Endpoint; e != "" && e != localPrism.Load() {
			return false, fmt.Sprintf("-endpoint=%s sends the job to a Prism server elsewhere", *jobopts.Endpoint)
		}
		if t := strings.ToLower(*jobopts.EnvironmentType); t != "" && t != "loopback" {
			return false, fmt.Sprintf("-environment_type=%s runs the workers in other processes", *jobopts.EnvironmentType)
		}
		return true, ""
	}
	return false, fmt.Sprintf("-runner=%s runs the workers in other processes", name)
}

// localPrism is the endpoint of the Prism server that Prism started in this
// process for an earlier job: Prism sets -endpoint to it, and runs later
// jobs there, still in this process.
var localPrism atomic.Value

func init() {
	localPrism.Store("")
	// Collect's steps: found by name on the (in-process) worker.
	register.DoFn1x0[abeam.T](&collectFn{})
	register.DoFn2x0[abeam.X, abeam.Y](&collectKVFn{})
}

func beamRunnerName() string {
	if r := *runners.Runner; r != "" && r != "gopar" {
		return r
	}
	return "prism"
}

func (p *Pipeline) runBeam(ctx context.Context) error {
	for _, o := range p.outputs {
		if !o.inProcess() {
			continue
		}
		if ok, why := inProcessWorkers(); !ok {
			return fmt.Errorf("beam: Collect needs the job's workers in this process, and %s: write the collection with WriteText instead", why)
		}
	}
	bp, s := abeam.NewPipelineWithRoot()
	cols := make(map[*node]abeam.PCollection, len(p.nodes))
	for _, n := range p.nodes {
		in := make([]abeam.PCollection, len(n.inputs))
		for i, x := range n.inputs {
			in[i] = cols[x]
		}
		cols[n] = n.beam(s, in)
	}
	ids := make([]string, len(p.outputs))
	for i, o := range p.outputs {
		ids[i] = fmt.Sprintf("sink-%d", sinkSeq.Add(1))
		o.beamSink(s, cols[o.node()], ids[i])
	}
	defer func() {
		collectedMu.Lock()
		for _, id := range ids {
			delete(collected, id)
		}
		collectedMu.Unlock()
	}()
	startsPrism := *jobopts.Endpoint == ""
	_, err := abeam.Run(ctx, beamRunnerName(), bp)
	if startsPrism && *jobopts.Endpoint != "" {
		localPrism.Store(*jobopts.Endpoint)
	}
	if err != nil {
		return fmt.Errorf("beam: the Beam job failed: %w", err)
	}
	collectedMu.Lock()
	defer collectedMu.Unlock()
	for i, o := range p.outputs {
		o.setBeam(collected[ids[i]])
	}
	return nil
}

// runNode runs one node on gopar, turning a source's read error into Run's
// error; any other panic is the user's, and goes on up.
func runNode(ctx context.Context, n *node, in []any) (r any, err error) {
	defer func() {
		if v := recover(); v != nil {
			e, ok := v.(readError)
			if !ok {
				panic(v)
			}
			err = e.err
		}
	}()
	return n.local(ctx, in), nil
}
