package runtime

import (
	"fmt"
	"runtime/debug"
)

// Panic is what gopar re-raises in the waiting goroutine when a task
// panicked, possibly on another worker. Value is the value the task passed
// to panic; Stack is the stack of the goroutine where the panic happened, so
// the report points at the task and not at the goroutine that re-raised it.
//
// Recover it like any other panic value:
//
//	defer func() {
//		if r := recover(); r != nil {
//			if p, ok := r.(*runtime.Panic); ok {
//				log.Printf("task failed: %v\n%s", p.Value, p.Stack)
//			}
//		}
//	}()
type Panic struct {
	Value any
	Stack []byte
}

// newPanic wraps a recovered value together with the current goroutine's
// stack. Call it inside the deferred function that recovered v, so that the
// stack still shows where the panic happened. A value that is already a
// *Panic is returned as it is: a panic that crosses several joins keeps its
// first stack.
func newPanic(v any) *Panic {
	if p, ok := v.(*Panic); ok {
		return p
	}
	return &Panic{Value: v, Stack: debug.Stack()}
}

// Error reports the original value and the stack where it was raised.
func (p *Panic) Error() string {
	if p == nil {
		refuse("Panic.Error", nilPanic)
	}
	return fmt.Sprintf("gopar: a task panicked: %v\n\ngoroutine stack where it panicked:\n%s", p.Value, p.Stack)
}

// Unwrap returns the original value if it is an error, so that errors.Is
// and errors.As see through the wrapper.
func (p *Panic) Unwrap() error {
	if p == nil {
		refuse("Panic.Unwrap", nilPanic)
	}
	if err, ok := p.Value.(error); ok {
		return err
	}
	return nil
}

// nilPanic is what a method called on a nil *Panic says.
const nilPanic = "was called on a nil *Panic; a nil *Panic records no failure"

// catch runs f and returns what it panicked with, or nil if it returned
// normally.
func catch(f func()) (p *Panic) {
	if f == nil {
		refuse("Catch", nilFunc)
	}
	returned := false
	defer func() {
		if !returned {
			p = unwinding(recover()) // a Goexit goes on
		}
	}()
	f()
	returned = true
	return nil
}
