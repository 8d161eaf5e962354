package beam

import (
	"fmt"
	"reflect"
)

// mustCarry panics if Beam would not carry a T intact between workers. Beam
// encodes a struct with its row coder, which encodes exported fields only:
// an unexported field would arrive as zero after a shuffle, with no error
// anywhere, so such a type is refused here, where the step is declared.
func mustCarry[T any](where string) {
	if why := cannotCarry(reflect.TypeFor[T](), false, map[reflect.Type]bool{}); why != "" {
		panic(fmt.Sprintf("beam: %s: element type %v: %s", where, reflect.TypeFor[T](), why))
	}
}

// mustKey is mustCarry for a key, which must also group the same way on
// gopar (Go's ==) and on Beam (equal encodings): a pointer in a key compares
// by address in a Go map and by the value it points to on Beam.
func mustKey[K comparable](where string) {
	if why := cannotCarry(reflect.TypeFor[K](), true, map[reflect.Type]bool{}); why != "" {
		panic(fmt.Sprintf("beam: %s: key type %v: %s", where, reflect.TypeFor[K](), why))
	}
}

// cannotCarry says why t cannot be carried, or returns "".
func cannotCarry(t reflect.Type, key bool, seen map[reflect.Type]bool) string {
	if seen[t] {
		return ""
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Uintptr:
		return fmt.Sprintf("a %v cannot be encoded to travel between Beam workers", t.Kind())
	case reflect.Interface:
		return fmt.Sprintf("an interface (%v) cannot be encoded by Beam without a registered coder for each dynamic type: use a concrete type", t)
	case reflect.Complex64, reflect.Complex128:
		return "Beam's row coder does not encode complex numbers (BEAM-9615): carry the real and imaginary parts as two float fields"
	case reflect.Pointer:
		if key {
			return "a pointer in a key groups by address on gopar and by the pointed-to value on Beam: use the value"
		}
		return cannotCarry(t.Elem(), key, seen)
	case reflect.Slice, reflect.Array:
		return cannotCarry(t.Elem(), key, seen)
	case reflect.Map:
		if why := cannotCarry(t.Key(), key, seen); why != "" {
			return why
		}
		return cannotCarry(t.Elem(), key, seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Sprintf("field %s of %v is unexported, and Beam's row coder drops unexported fields "+
					"(they arrive as zero after a shuffle): export it", f.Name, t)
			}
			if why := cannotCarry(f.Type, key, seen); why != "" {
				return why
			}
		}
	}
	return ""
}
