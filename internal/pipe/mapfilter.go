package pipe

// Filter keeps the items for which pred returns true.
func (s Spec[T]) Filter(pred func(T) bool) Spec[T] {
	out := s.filter(pred)
	if bind := s.bind; bind != nil {
		out.bind = func() (Spec[T], func()) {
			t, release := bind()
			return t.filter(pred), release
		}
	}
	return out
}

func (s Spec[T]) filter(pred func(T) bool) Spec[T] {
	switch s.kind {
	case formFlat:
		flat := s.flat
		s.flat = func(i int, yield func(T) bool) bool {
			return flat(i, func(v T) bool { return !pred(v) || yield(v) })
		}
		s.slices = nil
		return s
	case formGen:
		gen := s.gen
		s.gen = func(i int) (T, bool) {
			v, ok := gen(i)
			return v, ok && pred(v)
		}
		return s
	case formAt:
		at := s.at
		s.gen = func(i int) (T, bool) {
			v := at(i)
			return v, pred(v)
		}
	case formSlice:
		xs := s.slice
		s.gen = func(i int) (T, bool) {
			v := xs[i]
			return v, pred(v)
		}
	default:
		// T is int: convert pred once rather than every item.
		predInt := any(pred).(func(int) bool)
		s.gen = any(func(i int) (int, bool) { return i, predInt(i) }).(func(int) (T, bool))
	}
	s.kind, s.at, s.slice = formGen, nil, nil
	return s
}

// Map applies f to every item. f runs only on items that survive the
// filters before it.
func (s Spec[T]) Map(f func(T) T) Spec[T] {
	return MapSpec(s, f)
}

// MapSpec is Map with a change of item type.
func MapSpec[T, U any](s Spec[T], f func(T) U) Spec[U] {
	out := mapSpec(s, f)
	if bind := s.bind; bind != nil {
		out.bind = func() (Spec[U], func()) {
			t, release := bind()
			return mapSpec(t, f), release
		}
	}
	return out
}

func mapSpec[T, U any](s Spec[T], f func(T) U) Spec[U] {
	out := Spec[U]{Lo: s.Lo, Hi: s.Hi, Config: s.Config, kind: s.kind}
	switch s.kind {
	case formFlat:
		flat := s.flat
		out.flat = func(i int, yield func(U) bool) bool {
			return flat(i, func(v T) bool { return yield(f(v)) })
		}
	case formGen:
		gen := s.gen
		out.gen = func(i int) (U, bool) {
			v, ok := gen(i)
			if !ok {
				var zero U
				return zero, false
			}
			return f(v), true
		}
	case formAt:
		at := s.at
		out.at = func(i int) U { return f(at(i)) }
	case formSlice:
		xs := s.slice
		out.kind, out.at = formAt, func(i int) U { return f(xs[i]) }
	default:
		// The items are the indices: T is int, so f is a func(int) U and
		// becomes at itself, with no wrapper to call through.
		out.kind, out.at = formAt, any(f).(func(int) U)
	}
	return out
}

// FilterMapSpec keeps f(x) for the items x for which f reports true: a map
// and a filter in one step.
func FilterMapSpec[T, U any](s Spec[T], f func(T) (U, bool)) Spec[U] {
	out := filterMapSpec(s, f)
	if bind := s.bind; bind != nil {
		out.bind = func() (Spec[U], func()) {
			t, release := bind()
			return filterMapSpec(t, f), release
		}
	}
	return out
}

func filterMapSpec[T, U any](s Spec[T], f func(T) (U, bool)) Spec[U] {
	if s.kind == formFlat {
		flat := s.flat
		return Spec[U]{Lo: s.Lo, Hi: s.Hi, Config: s.Config, kind: formFlat, flat: func(i int, yield func(U) bool) bool {
			return flat(i, func(v T) bool {
				u, ok := f(v)
				return !ok || yield(u)
			})
		}}
	}
	item := func(i int) (T, bool) { return Item(&s, i) }
	return Spec[U]{Lo: s.Lo, Hi: s.Hi, Config: s.Config, kind: formGen, gen: func(i int) (U, bool) {
		if v, ok := item(i); ok {
			return f(v)
		}
		var zero U
		return zero, false
	}}
}

// FlatMapSpec replaces every item x by the items of f(x), in order.
func FlatMapSpec[T, U any](s Spec[T], f func(T) []U) Spec[U] {
	out := flatMapSpec(s, f)
	if bind := s.bind; bind != nil {
		out.bind = func() (Spec[U], func()) {
			t, release := bind()
			return flatMapSpec(t, f), release
		}
	}
	return out
}

func flatMapSpec[T, U any](s Spec[T], f func(T) []U) Spec[U] {
	expand := func(v T, yield func(U) bool) bool {
		for _, u := range f(v) {
			if !yield(u) {
				return false
			}
		}
		return true
	}
	out := Spec[U]{Lo: s.Lo, Hi: s.Hi, Config: s.Config, kind: formFlat}
	if s.kind == formFlat {
		flat := s.flat
		out.flat = func(i int, yield func(U) bool) bool {
			return flat(i, func(v T) bool { return expand(v, yield) })
		}
		return out
	}
	item := func(i int) (T, bool) { return Item(&s, i) }
	out.flat = func(i int, yield func(U) bool) bool {
		v, ok := item(i)
		return !ok || expand(v, yield)
	}
	out.slices = func(i int) []U {
		if v, ok := item(i); ok {
			return f(v)
		}
		return nil
	}
	return out
}
