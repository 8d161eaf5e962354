package iter

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// TestSpecHasTheEngineMethods: Spec, a type of its own over the engine's,
// has each exported method of the engine's Spec, with the same signature
// but for Spec itself, so that a method the engine gains is not missing
// here.
func TestSpecHasTheEngineMethods(t *testing.T) {
	own, engine := reflect.TypeFor[*Spec[int]](), reflect.TypeFor[*pipe.Spec[int]]()
	if engine.NumMethod() == 0 {
		t.Fatal("the engine's Spec has no exported method: the check checks nothing")
	}
	for i := range engine.NumMethod() {
		m := engine.Method(i)
		mine, ok := own.MethodByName(m.Name)
		if !ok {
			t.Errorf("iter.Spec lacks the method %s", m.Name)
			continue
		}
		want := strings.ReplaceAll(m.Type.String(), "pipe.Spec", "iter.Spec")
		if got := mine.Type.String(); got != want {
			t.Errorf("iter.Spec.%s is %s, want %s", m.Name, got, want)
		}
	}
	if own.NumMethod() != engine.NumMethod() {
		t.Errorf("iter.Spec has %d methods, the engine's %d", own.NumMethod(), engine.NumMethod())
	}
}

// engineOnly are the fields of the engine's Reducer that only par's
// operations set.
var engineOnly = []string{"Unordered", "SeqLen"}

// TestReducerFieldsAreTheEngines: Reducer's fields are the engine's, by
// name and type and in its order, but for engineOnly, so that Run hands on
// every field a user sets and a field the engine gains is not forgotten.
func TestReducerFieldsAreTheEngines(t *testing.T) {
	own, engine := reflect.TypeFor[Reducer[int]](), reflect.TypeFor[pipe.Reducer[int]]()
	var want []string
	for i := range engine.NumField() {
		if f := engine.Field(i); !slices.Contains(engineOnly, f.Name) {
			want = append(want, f.Name+" "+f.Type.String())
		}
	}
	var got []string
	for i := range own.NumField() {
		got = append(got, own.Field(i).Name+" "+own.Field(i).Type.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("iter.Reducer's fields are\n%q, the engine's (but for %v)\n%q", got, engineOnly, want)
	}
}
