package partition

import (
	"math"
	"math/bits"
)

// partsGrowing counts the partitions of a growing loop: the first k whose
// offset reaches n.
func (l *Loop) partsGrowing() uint64 {
	if l.n > l.capOff {
		full := (l.n-l.capOff-1)/MaxLen + 1 // rounded up, without overflow
		return l.capK + full
	}
	// Find the size step q whose partitions hold offset n-1, then the
	// partition of that step.
	for q := uint64(0); ; q++ {
		size := l.first << q
		stepStart := l.offset(q * l.every)
		if l.n <= satAdd(stepStart, satMul(l.every, size)) {
			return q*l.every + (l.n-stepStart+size-1)/size
		}
	}
}

// offset returns where partition k starts, relative to lo, clamped to n.
func (l *Loop) offset(k uint64) uint64 {
	if l.first == 0 {
		// Equal partitions: floor(k*n/parts), without overflow.
		hi, lo := bits.Mul64(k, l.n)
		q, _ := bits.Div64(hi, lo, l.parts) // hi < parts since k <= parts
		return q
	}
	var off uint64
	if k < l.capK {
		q, r := k/l.every, k%l.every
		off = satAdd(satMul(satMul(l.every, l.first), 1<<q-1), satMul(r, l.first<<q))
	} else {
		off = satAdd(l.capOff, satMul(k-l.capK, MaxLen))
	}
	return min(off, l.n)
}

// satMul and satAdd saturate at the largest uint64 instead of wrapping: an
// offset past the end of the loop only needs to compare as such.
func satMul(a, b uint64) uint64 {
	if hi, lo := bits.Mul64(a, b); hi == 0 {
		return lo
	}
	return math.MaxUint64
}

func satAdd(a, b uint64) uint64 {
	if s, carry := bits.Add64(a, b, 0); carry == 0 {
		return s
	}
	return math.MaxUint64
}

// claim claims the next unclaimed partition below the cut and returns its
// Range, or nil if there is none.
func (l *Loop) claim(cut int) *Range {
	k := l.claimed.Add(1) - 1
	if k >= l.parts {
		return nil
	}
	off := l.offset(k)
	if l.at(off) >= cut {
		// This one and every later one lie above the cut.
		l.claimed.Store(l.parts)
		return nil
	}
	var r *Range
	if k < uint64(len(l.ranges)) {
		r = &l.ranges[k]
	} else {
		r = new(Range)
	}
	r.initAt(l.at(off), l.offset(k+1)-off)
	return r
}

// nextSize returns the size of the next partition to claim, or 0 if none is
// left (a racy snapshot, for the choice between stealing and claiming).
func (l *Loop) nextSize() int {
	k := l.claimed.Load()
	if k >= l.parts {
		return 0
	}
	return int(l.offset(k+1) - l.offset(k))
}
