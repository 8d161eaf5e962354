package pipe

// The index adapters: Take, Skip, Enumerate, Zip and Chain (par's names).
// Each works on a position in the output: the n-th item, the i-th pair.
//
// Over an indexed Spec (a range, a slice, and maps of them: no filter, no
// FlatMap, no seq), position i is index Lo+i, so each adapter is index
// arithmetic on the Spec and runs nothing of its own: Take and Skip narrow
// [Lo, Hi), Enumerate and Zip map an index to its items, Chain maps the
// indexes of two Specs to one range. Chain also composes Specs whose items
// a filter may drop, or FlatMap's: its positions are then the indexes of
// the two Specs, one after the other, and its form the more general of
// theirs.
//
// Over any other Spec (a seq, a filter, a FlatMap) the positions are known
// only once the items before them have been computed, in order: the
// adapter's result is then a Spec over the items of the Spec before it as
// a stream (restream.go), which the steps after the adapter run on as on
// FromSeq's items.

// indexed reports whether item i of s is index Lo+i: no filter, no
// FlatMap, no seq.
func (s *Spec[T]) indexed() bool { return s.seq == nil && s.kind < formGen }

// TakeSpec is the first n items of s (n >= 0), all of them if s has fewer.
// Over a seq, no item past those needed is pulled when each item of the
// seq gives at most one (see runBatches).
func TakeSpec[T any](s Spec[T], n int) Spec[T] {
	if !s.indexed() {
		return restream(s.Config, prefixOf(s, n))
	}
	if uint64(n) < uint64(s.Hi)-uint64(s.Lo) {
		s.Hi = int(uint64(s.Lo) + uint64(n)) // below Hi: it fits
	}
	return s
}

// SkipSpec is s without its first n items (n >= 0).
func SkipSpec[T any](s Spec[T], n int) Spec[T] {
	if !s.indexed() {
		items := itemsOf(s)
		return restream(s.Config, func(up Config, c *credit, emit func([]T) bool) bool {
			left := n
			return items(up, c, func(batch []T) bool {
				drop := min(left, len(batch))
				left -= drop
				return drop == len(batch) || emit(batch[drop:])
			})
		})
	}
	if uint64(n) < uint64(s.Hi)-uint64(s.Lo) {
		s.Lo = int(uint64(s.Lo) + uint64(n))
	} else {
		s.Lo = s.Hi
	}
	return s
}

// EnumerateSpec is f(i, x) for the item x at each position i of s, from 0.
func EnumerateSpec[T, U any](s Spec[T], f func(i int, v T) U) Spec[U] {
	if !s.indexed() {
		items := itemsOf(s)
		return restream(s.Config, func(up Config, c *credit, emit func([]U) bool) bool {
			i := 0
			return items(up, c, func(batch []T) bool {
				out := make([]U, len(batch))
				for k, v := range batch {
					out[k] = f(i+k, v)
				}
				i += len(batch)
				return emit(out)
			})
		})
	}
	out := enumerate(s, f)
	if s.bind != nil {
		out.bind = func() (Spec[U], func()) {
			t, release := s.bound()
			return enumerate(t, f), release
		}
	}
	return out
}

// enumerate is EnumerateSpec on an indexed Spec (or its bound form).
func enumerate[T, U any](s Spec[T], f func(int, T) U) Spec[U] {
	at, lo := atOf(&s), s.Lo
	return Spec[U]{Lo: s.Lo, Hi: s.Hi, Config: s.Config, kind: formAt, at: func(i int) U { return f(i-lo, at(i)) }}
}

// ZipSpec is f(x, y) for the items x of a and y of b at each position, as
// many as the shorter of the two has, with a's settings and both sides'
// Failure. It panics if a and b read the same seq, which one operation
// cannot pull twice at once.
func ZipSpec[T, U, V any](a Spec[T], b Spec[U], f func(T, U) V) Spec[V] {
	a.Failure = JoinFailures(a.Failure, b.Failure) // either side's source may fail
	if a.seq != nil && a.seq == b.seq {
		panic("gopar: par.Zip: both iterators read the same FromSeq or FromChan source, which one operation pulls once: " +
			"pair its items with Enumerate, or Collect one side first")
	}
	if !a.indexed() || !b.indexed() {
		// The stream pairs the items; f runs after it, in parallel.
		pairs := restream(a.Config, zipOf(a, b))
		return MapSpec(pairs, func(p pair[T, U]) V { return f(p.x, p.y) })
	}
	n := min(uint64(a.Hi)-uint64(a.Lo), uint64(b.Hi)-uint64(b.Lo))
	if n > 1<<63-1 {
		panic("gopar: par.Zip: both ranges hold more items than an int can count; zip shorter ranges")
	}
	out := zip(a, b, int(n), f)
	if a.bind != nil || b.bind != nil {
		out.bind = func() (Spec[V], func()) {
			ta, releaseA := a.bound()
			tb, releaseB := b.bound()
			return zip(ta, tb, int(n), f), func() { releaseB(); releaseA() }
		}
	}
	return out
}

// zip is ZipSpec on indexed Specs (or their bound forms): n positions.
func zip[T, U, V any](a Spec[T], b Spec[U], n int, f func(T, U) V) Spec[V] {
	atA, atB, da, db := atOf(&a), atOf(&b), a.Lo, b.Lo
	return Spec[V]{Lo: 0, Hi: n, Config: a.Config, kind: formAt, at: func(i int) V { return f(atA(da+i), atB(db+i)) }}
}

// ChainSpec is the items of a, then those of b, with a's settings and
// both sides' Failure. Over two Specs that read no seq, it needs the
// numbers of their indexes to add up to at most math.MaxInt (the caller
// checks).
func ChainSpec[T any](a, b Spec[T]) Spec[T] {
	a.Failure = JoinFailures(a.Failure, b.Failure) // either side's source may fail
	if a.seq != nil || b.seq != nil {
		first, then := itemsOf(a), itemsOf(b)
		return restream(a.Config, func(up Config, c *credit, emit func([]T) bool) bool {
			return first(up, c, emit) && then(up, c, emit)
		})
	}
	la, lb := span(a.Lo, a.Hi), span(b.Lo, b.Hi)
	kind := max(a.kind, b.kind, formAt) // the form that holds both sides'
	out := chain(a.Config, la, lb, kind, sideOf(&a, kind), sideOf(&b, kind))
	if a.bind == nil && b.bind == nil {
		return out
	}
	out.bind = func() (Spec[T], func()) {
		// Each side is bound on its first item: a block that lies in one
		// side checks out no state of the other's stages.
		sa, sb := &lazySide[T]{s: a, kind: kind}, &lazySide[T]{s: b, kind: kind}
		// A block runs its indexes in ascending order: once it reaches the
		// second side, it is done with the first, whose state goes back
		// (the two sides often share their stages: Take(n).Chain(Skip(n))).
		sb.before = sa.release
		release := func() { sb.release(); sa.release() }
		lo := side[T]{lo: a.Lo}
		hi := side[T]{lo: b.Lo}
		switch kind {
		case formAt:
			lo.at = func(i int) T { return sa.get().at(i) }
			hi.at = func(i int) T { return sb.get().at(i) }
		case formGen:
			lo.gen = func(i int) (T, bool) { return sa.get().gen(i) }
			hi.gen = func(i int) (T, bool) { return sb.get().gen(i) }
		default:
			lo.flat = func(i int, yield func(T) bool) bool { return sa.get().flat(i, yield) }
			hi.flat = func(i int, yield func(T) bool) bool { return sb.get().flat(i, yield) }
		}
		return chain(a.Config, la, lb, kind, lo, hi), release
	}
	return out
}

// side is one Spec of a chain: its first index and its item function of
// the chain's form.
type side[T any] struct {
	lo   int
	at   func(int) T
	gen  func(int) (T, bool)
	flat func(int, func(T) bool) bool
}

// sideOf returns the side of s, its items given in form kind (formAt,
// formGen or formFlat, at least s's own).
func sideOf[T any](s *Spec[T], kind form) side[T] {
	out := side[T]{lo: s.Lo}
	switch kind {
	case formAt:
		out.at = atOf(s)
	case formGen:
		out.gen = genOf(s)
	default:
		out.flat = flatOf(s)
	}
	return out
}

// lazySide is a side of a chain with a stage of per-goroutine state, bound
// for one block when the block first reads it.
type lazySide[T any] struct {
	s       Spec[T]
	kind    form
	fns     side[T]
	done    func()
	checked bool
	before  func() // called before the side is bound
}

func (l *lazySide[T]) get() *side[T] {
	if !l.checked {
		if l.before != nil {
			l.before()
		}
		t, release := l.s.bound()
		l.fns, l.done, l.checked = sideOf(&t, l.kind), release, true
	}
	return &l.fns
}

// release gives the side's state back, if it holds one.
func (l *lazySide[T]) release() {
	if l.checked {
		l.checked = false
		l.done()
	}
}

// chain is the Spec of positions [0, la+lb): position i is index a.lo+i of
// the first side below la, index b.lo+(i-la) of the second from there.
func chain[T any](cfg Config, la, lb int, kind form, a, b side[T]) Spec[T] {
	out := Spec[T]{Lo: 0, Hi: la + lb, Config: cfg, kind: kind}
	da, db := a.lo, b.lo
	switch kind {
	case formAt:
		atA, atB := a.at, b.at
		out.at = func(i int) T {
			if i < la {
				return atA(da + i)
			}
			return atB(db + (i - la))
		}
	case formGen:
		genA, genB := a.gen, b.gen
		out.gen = func(i int) (T, bool) {
			if i < la {
				return genA(da + i)
			}
			return genB(db + (i - la))
		}
	default:
		flatA, flatB := a.flat, b.flat
		out.flat = func(i int, yield func(T) bool) bool {
			if i < la {
				return flatA(da+i, yield)
			}
			return flatB(db+(i-la), yield)
		}
	}
	return out
}

// bound returns s with its per-goroutine state checked out (s itself if it
// has none) and the function that gives the state back. The Spec that bind
// returns has the range of the stage that made it: Take and Skip since
// then have narrowed s's, which it gets back.
func (s Spec[T]) bound() (Spec[T], func()) {
	if s.bind == nil {
		return s, func() {}
	}
	t, release := s.bind()
	t.Lo, t.Hi = s.Lo, s.Hi
	return t, release
}

// atOf returns the item function of an unfiltered s: item i for index i.
func atOf[T any](s *Spec[T]) func(int) T {
	switch s.kind {
	case formAt:
		return s.at
	case formSlice:
		xs := s.slice
		return func(i int) T { return xs[i] }
	case formInts:
		return any(func(i int) int { return i }).(func(int) T)
	}
	panic("pipe: atOf on a filtered Spec")
}

// genOf returns the item function of a Spec that FlatMap did not make.
func genOf[T any](s *Spec[T]) func(int) (T, bool) {
	if s.kind == formGen {
		return s.gen
	}
	at := atOf(s)
	return func(i int) (T, bool) { return at(i), true }
}

// flatOf returns the item function of any Spec in FlatMap's form.
func flatOf[T any](s *Spec[T]) func(int, func(T) bool) bool {
	if s.kind == formFlat {
		return s.flat
	}
	gen := genOf(s)
	return func(i int, yield func(T) bool) bool {
		v, ok := gen(i)
		return !ok || yield(v)
	}
}
