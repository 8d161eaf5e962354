package pipe

// The block entry points of Partition's pack (see par.Iter.Partition): a
// first pass flags every item, a second copies each item straight into its
// place in the results. The second pass reads the items again, so it is
// offered only where that calls no user code and costs a load: a slice or
// a range of ints with no stage.

// Flags of FlagBlock and PackBlock: an item that did not run (a done
// context) keeps flag 0 and goes nowhere.
const (
	FlagNo  uint8 = 1
	FlagYes uint8 = 2
)

// Rereadable reports whether s's items can be read twice at no cost and
// without calling user code: s is a slice or a range of ints, with no
// adapter.
func Rereadable[T any](s *Spec[T]) bool {
	return s.bind == nil && (s.kind == formSlice || s.kind == formInts)
}

// FlagBlock calls pred on the items with index in [lo, hi) of a Rereadable
// s, sets flags[i-lo] to FlagYes where it returns true and to FlagNo
// elsewhere, and returns the number of FlagYes.
func FlagBlock[T any](s *Spec[T], lo, hi int, pred func(T) bool, flags []uint8) int {
	flags = flags[:hi-lo]
	yes := 0
	if s.kind == formSlice {
		for i, v := range s.slice[lo:hi] {
			f := FlagNo
			if pred(v) {
				f = FlagYes
			}
			flags[i] = f
			yes += int(f >> 1)
		}
		return yes
	}
	predInt := any(pred).(func(int) bool) // T is int
	for i := range flags {
		f := FlagNo
		if predInt(lo + i) {
			f = FlagYes
		}
		flags[i] = f
		yes += int(f >> 1)
	}
	return yes
}

// PackBlock copies the items with index in [lo, hi) of a Rereadable s, in
// order, to yes where flags[i-lo] is FlagYes and to no where it is FlagNo;
// yes and no must have room for them.
func PackBlock[T any](s *Spec[T], lo, hi int, flags []uint8, yes, no []T) {
	flags = flags[:hi-lo]
	y, n := 0, 0
	if s.kind == formSlice {
		for i, v := range s.slice[lo:hi] {
			switch flags[i] {
			case FlagYes:
				yes[y] = v
				y++
			case FlagNo:
				no[n] = v
				n++
			}
		}
		return
	}
	yesInt, noInt := any(yes).([]int), any(no).([]int) // T is int
	for i, f := range flags {
		switch f {
		case FlagYes:
			yesInt[y] = lo + i
			y++
		case FlagNo:
			noInt[n] = lo + i
			n++
		}
	}
}
