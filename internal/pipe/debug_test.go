//go:build gopar_debug

package pipe

import (
	"strings"
	"testing"

	"github.com/gopar-dev/gopar/partition"
)

// With gopar_debug, combine refuses runs that leave a gap or overlap.
func TestDebugCatchesRunsThatDoNotTile(t *testing.T) {
	for _, c := range []struct {
		runs []run
		want string
	}{
		{[]run{{0, 4, 1}, {5, 10, 1}}, "where the runs so far end at 4"},
		{[]run{{0, 4, 1}, {3, 10, 1}}, "where the runs so far end at 4"},
		{[]run{{0, 4, 1}, {4, 9, 1}}, "the runs end at 9, the loop at 10"},
	} {
		// The prefix [0, 4) ran inline; the partitioned rest is [4, 10).
		o := &loop{r: Reducer[any]{Combine: func(a, b any) any { return a.(int) + b.(int) }}, parts: partition.NewLoop(4, 10, 1), lo: 0, rest: 4, gathered: gathered{runs: c.runs}}
		func() {
			defer func() {
				s, _ := recover().(string)
				if !strings.Contains(s, c.want) {
					t.Errorf("runs %v: panicked with %q, want %q", c.runs, s, c.want)
				}
			}()
			o.combine()
		}()
	}
}
