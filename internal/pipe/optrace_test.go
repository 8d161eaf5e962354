package pipe

import "testing"

// TestSplitFuncName: the operation's name is the last part of the runtime's
// function name that is not a closure's, without type arguments.
func TestSplitFuncName(t *testing.T) {
	for _, c := range []struct{ full, pkg, name string }{
		{"github.com/gopar-dev/gopar/par.Nums[go.shape.int].Sum", "github.com/gopar-dev/gopar/par", "Sum"},
		{"github.com/gopar-dev/gopar/par.CountBy[go.shape.string,go.shape.int]", "github.com/gopar-dev/gopar/par", "CountBy"},
		{"github.com/gopar-dev/gopar/par.Iter[...].Values.func2", "github.com/gopar-dev/gopar/par", "Values"},
		{"github.com/gopar-dev/gopar/par.(*TryGroup).Go.gowrap1", "github.com/gopar-dev/gopar/par", "Go"},
		{"example.com/m/par_test.TestX.Iter[...].Values.func9", "example.com/m/par_test", "Values"},
		{"main.main", "main", "main"},
		{"main.main.func1.2", "main", "main"},
		{"nodot", "nodot", ""},
	} {
		if pkg, name := splitFuncName(c.full); pkg != c.pkg || name != c.name {
			t.Errorf("splitFuncName(%q) = %q, %q; want %q, %q", c.full, pkg, name, c.pkg, c.name)
		}
	}
}
