package runtime

import (
	"sync/atomic"
	"testing"
)

// curGWorks runs curG's self-test, if no pool has yet, and reports whether
// curG is in use.
func curGWorks() bool {
	checkCurG()
	return useCurG.Load()
}

// TestCurGSelfTest: the self-test accepts curG where it is implemented and
// not left out by the gopar_nocurg tag, and refuses an identity that gives
// two goroutines the same value, one that gives the same goroutine two
// values, and 0.
func TestCurGSelfTest(t *testing.T) {
	if got := curGWorks(); got != haveCurG {
		t.Errorf("curG in use: %v; implemented here: %v", got, haveCurG)
	}
	if haveCurG && !curGDistinct(curG) {
		t.Error("the self-test refuses curG")
	}
	var n atomic.Uintptr
	for name, id := range map[string]func() uintptr{
		"the same value everywhere":      func() uintptr { return 42 },
		"a new value at every call":      func() uintptr { return n.Add(1) },
		"zero":                           func() uintptr { return 0 },
		"the same value on two of eight": sameOnTwo(),
	} {
		if curGDistinct(id) {
			t.Errorf("the self-test accepts %s", name)
		}
	}
}

// sameOnTwo returns an identity that is curG's, or a counter's where curG
// is not implemented, except that the second and third goroutines to ask
// get the same value.
func sameOnTwo() func() uintptr {
	var calls atomic.Int32
	var next atomic.Uintptr
	next.Store(1000)
	return func() uintptr {
		switch c := calls.Add(1); {
		case c <= 2: // the caller, twice
			return 7
		case c == 3 || c == 4:
			return 8
		default:
			return next.Add(1)
		}
	}
}
