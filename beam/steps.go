package beam

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	abeam "github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/gopar-dev/gopar/par"
)

// Steps are found by name on a Beam worker: the job carries a DoFn such as
// mapFn[string, int]{Step: "parse"}, and the worker, which runs the same
// binary and has run the same package-level declarations, looks "parse" up
// in steps. This is why a step must be declared before Init and why two
// steps cannot share a name.
var (
	stepsMu    sync.Mutex
	steps      = map[string]any{}
	registered = map[reflect.Type]bool{}
	lookups    sync.Map // name -> step, for the workers' lock-free reads
)

// declare records a new step, or panics with what to do instead.
func declare(kind, name string, step any, fns ...any) {
	if name == "" {
		panic(fmt.Sprintf("beam: %s: a step needs a name (Beam's workers find it by name)", kind))
	}
	for _, f := range fns {
		if reflect.ValueOf(f).IsNil() {
			panic(fmt.Sprintf("beam: %s %q: nil function", kind, name))
		}
	}
	stepsMu.Lock()
	defer stepsMu.Unlock()
	if _, dup := steps[name]; dup {
		panic(fmt.Sprintf("beam: %s %q: a step of that name exists already: give each step a name of its own", kind, name))
	}
	if abeam.Initialized() {
		panic(fmt.Sprintf("beam: %s %q declared after beam.Init: a Beam worker would not have it. "+
			"Declare steps as package-level variables (var x = beam.%s(%q, ...)), which are set before main runs", kind, name, kind, name))
	}
	steps[name] = step
	lookups.Store(name, step)
}

// registerOnce runs reg the first time it sees the type of doFn: Beam warns
// when a DoFn type is registered twice, which two steps of the same types
// would do.
func registerOnce(doFn any, reg func()) {
	t := reflect.TypeOf(doFn)
	stepsMu.Lock()
	defer stepsMu.Unlock()
	if !registered[t] {
		registered[t] = true
		reg()
	}
}

// lookup returns the step called name, as a worker does.
func lookup[S any](name string) S {
	s, ok := lookups.Load(name)
	if !ok {
		panic(fmt.Sprintf("beam: no step named %q in this binary: declare steps as package-level variables", name))
	}
	return s.(S)
}

// stepKind says what an element-wise step does with each element.
type stepKind int

const (
	kindMap stepKind = iota
	kindFilter
	kindFilterMap
	kindFlatMap
)

// A Step is a named element-wise step from T to U, declared at package
// level with Map, Filter, FilterMap or FlatMap, and applied to collections
// with Apply. On gopar it is par.Map, Filter, par.FilterMap or par.FlatMap;
// on Beam, a ParDo.
type Step[T, U any] struct {
	name      string
	kind      stepKind
	mapF      func(T) U
	filterF   func(T) bool
	filterMap func(T) (U, bool)
	flatMap   func(T) []U
}

// Name returns the step's name.
func (st *Step[T, U]) Name() string { return st.name }

// Map declares a step that turns each element x into f(x): par.Map on
// gopar, a ParDo of a func(T) U on Beam.
func Map[T, U any](name string, f func(T) U) *Step[T, U] {
	mustCarry[T]("Map " + name)
	mustCarry[U]("Map " + name)
	st := &Step[T, U]{name: name, kind: kindMap, mapF: f}
	declare("Map", name, st, f)
	registerOnce(&mapFn[T, U]{}, func() { register.DoFn1x1[T, U](&mapFn[T, U]{}) })
	return st
}

// Filter declares a step that keeps the elements for which keep is true:
// Filter on gopar, a ParDo with an emitter on Beam.
func Filter[T any](name string, keep func(T) bool) *Step[T, T] {
	mustCarry[T]("Filter " + name)
	st := &Step[T, T]{name: name, kind: kindFilter, filterF: keep}
	declare("Filter", name, st, keep)
	registerOnce(&filterFn[T]{}, func() {
		register.DoFn2x0[T, func(T)](&filterFn[T]{})
		register.Emitter1[T]()
	})
	return st
}

// FilterMap declares a step that turns each element x into y where
// f(x) returns (y, true), and drops x where it returns false: par.FilterMap
// on gopar, a ParDo with an emitter on Beam.
func FilterMap[T, U any](name string, f func(T) (U, bool)) *Step[T, U] {
	mustCarry[T]("FilterMap " + name)
	mustCarry[U]("FilterMap " + name)
	st := &Step[T, U]{name: name, kind: kindFilterMap, filterMap: f}
	declare("FilterMap", name, st, f)
	registerOnce(&filterMapFn[T, U]{}, func() {
		register.DoFn2x0[T, func(U)](&filterMapFn[T, U]{})
		register.Emitter1[U]()
	})
	return st
}

// FlatMap declares a step that turns each element x into the elements of
// f(x): par.FlatMap on gopar, a ParDo with an emitter on Beam.
func FlatMap[T, U any](name string, f func(T) []U) *Step[T, U] {
	mustCarry[T]("FlatMap " + name)
	mustCarry[U]("FlatMap " + name)
	st := &Step[T, U]{name: name, kind: kindFlatMap, flatMap: f}
	declare("FlatMap", name, st, f)
	registerOnce(&flatMapFn[T, U]{}, func() {
		register.DoFn2x0[T, func(U)](&flatMapFn[T, U]{})
		register.Emitter1[U]()
	})
	return st
}

// Apply adds the step to c's pipeline and returns its output collection.
func (st *Step[T, U]) Apply(c Collection[T]) Collection[U] {
	in := c.node("Apply " + st.name)
	return Collection[U]{in.pipeline.add(&node{
		name:   st.name,
		inputs: []*node{in},
		local: func(ctx context.Context, in []any) any {
			src := par.Slice(in[0].([]T)).WithContext(ctx)
			switch st.kind {
			case kindMap:
				return par.Map(src, st.mapF).Collect()
			case kindFilter:
				return any(src.Filter(st.filterF).Collect()).([]U)
			case kindFilterMap:
				return par.FilterMap(src, st.filterMap).Collect()
			default:
				return par.FlatMap(src, st.flatMap).Collect()
			}
		},
		beam: func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection {
			s = s.Scope(st.name)
			switch st.kind {
			case kindMap:
				return abeam.ParDo(s, &mapFn[T, U]{Step: st.name}, in[0])
			case kindFilter:
				return abeam.ParDo(s, &filterFn[T]{Step: st.name}, in[0])
			case kindFilterMap:
				return abeam.ParDo(s, &filterMapFn[T, U]{Step: st.name}, in[0])
			default:
				return abeam.ParDo(s, &flatMapFn[T, U]{Step: st.name}, in[0])
			}
		},
	})}
}

func (c Collection[T]) node(where string) *node {
	if c.n == nil {
		panic(fmt.Sprintf("beam: %s: the zero Collection: make collections with Create, ReadText or a step's Apply", where))
	}
	return c.n
}

func (c Keyed[K, V]) node(where string) *node {
	if c.n == nil {
		panic(fmt.Sprintf("beam: %s: the zero Keyed collection: make them with ToKV, CountPerElement or a per-key step", where))
	}
	return c.n
}

// The DoFns below are what a Beam job carries: the step's name, and the
// types, which the worker resolves through the registrations above.

type mapFn[T, U any] struct{ Step string }

func (f *mapFn[T, U]) ProcessElement(x T) U { return lookup[*Step[T, U]](f.Step).mapF(x) }

type filterFn[T any] struct{ Step string }

func (f *filterFn[T]) ProcessElement(x T, emit func(T)) {
	if lookup[*Step[T, T]](f.Step).filterF(x) {
		emit(x)
	}
}

type filterMapFn[T, U any] struct{ Step string }

func (f *filterMapFn[T, U]) ProcessElement(x T, emit func(U)) {
	if y, ok := lookup[*Step[T, U]](f.Step).filterMap(x); ok {
		emit(y)
	}
}

type flatMapFn[T, U any] struct{ Step string }

func (f *flatMapFn[T, U]) ProcessElement(x T, emit func(U)) {
	for _, y := range lookup[*Step[T, U]](f.Step).flatMap(x) {
		emit(y)
	}
}

// A KVStep is a named step from T to key-value pairs, declared with ToKV.
type KVStep[T any, K comparable, V any] struct {
	name string
	f    func(T) (K, V)
}

// ToKV declares a step that turns each element x into the pair f(x), the
// input of the per-key steps: par.Map to KV on gopar, a ParDo returning
// (K, V), which makes a KV PCollection, on Beam.
func ToKV[T any, K comparable, V any](name string, f func(T) (K, V)) *KVStep[T, K, V] {
	mustCarry[T]("ToKV " + name)
	mustKey[K]("ToKV " + name)
	mustCarry[V]("ToKV " + name)
	st := &KVStep[T, K, V]{name: name, f: f}
	declare("ToKV", name, st, f)
	registerOnce(&toKVFn[T, K, V]{}, func() { register.DoFn1x2[T, K, V](&toKVFn[T, K, V]{}) })
	return st
}

// Apply adds the step to c's pipeline and returns its pairs.
func (st *KVStep[T, K, V]) Apply(c Collection[T]) Keyed[K, V] {
	in := c.node("Apply " + st.name)
	return Keyed[K, V]{in.pipeline.add(&node{
		name:   st.name,
		inputs: []*node{in},
		local: func(ctx context.Context, in []any) any {
			return par.Map(par.Slice(in[0].([]T)).WithContext(ctx), func(x T) KV[K, V] {
				k, v := st.f(x)
				return KV[K, V]{k, v}
			}).Collect()
		},
		beam: func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection {
			return abeam.ParDo(s.Scope(st.name), &toKVFn[T, K, V]{Step: st.name}, in[0])
		},
	})}
}

type toKVFn[T any, K comparable, V any] struct{ Step string }

func (f *toKVFn[T, K, V]) ProcessElement(x T) (K, V) {
	return lookup[*KVStep[T, K, V]](f.Step).f(x)
}

// A FromKVStep is a named step from key-value pairs to U, declared with
// FromKV.
type FromKVStep[K comparable, V, U any] struct {
	name string
	f    func(K, V) U
}

// FromKV declares a step that turns each pair (k, v) into f(k, v): to
// format per-key results as lines for WriteText, say.
func FromKV[K comparable, V, U any](name string, f func(K, V) U) *FromKVStep[K, V, U] {
	mustKey[K]("FromKV " + name)
	mustCarry[V]("FromKV " + name)
	mustCarry[U]("FromKV " + name)
	st := &FromKVStep[K, V, U]{name: name, f: f}
	declare("FromKV", name, st, f)
	registerOnce(&fromKVFn[K, V, U]{}, func() { register.DoFn2x1[K, V, U](&fromKVFn[K, V, U]{}) })
	return st
}

// Apply adds the step to c's pipeline and returns its output collection.
func (st *FromKVStep[K, V, U]) Apply(c Keyed[K, V]) Collection[U] {
	in := c.node("Apply " + st.name)
	return Collection[U]{in.pipeline.add(&node{
		name:   st.name,
		inputs: []*node{in},
		local: func(ctx context.Context, in []any) any {
			return par.Map(par.Slice(in[0].([]KV[K, V])).WithContext(ctx), func(kv KV[K, V]) U {
				return st.f(kv.Key, kv.Value)
			}).Collect()
		},
		beam: func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection {
			return abeam.ParDo(s.Scope(st.name), &fromKVFn[K, V, U]{Step: st.name}, in[0])
		},
	})}
}

type fromKVFn[K comparable, V, U any] struct{ Step string }

func (f *fromKVFn[K, V, U]) ProcessElement(k K, v V) U {
	return lookup[*FromKVStep[K, V, U]](f.Step).f(k, v)
}
