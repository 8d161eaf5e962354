package par

import (
	"fmt"
	"time"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// WithSlow returns it with its terminal operations calling slow when one
// has run for longer than after, while it still runs: once, on a
// goroutine of its own, under the caller's pprof labels. From there a
// program can keep what it did until then, such as a snapshot of a
// runtime/trace.FlightRecorder it owns, or a goroutine dump. An operation
// that ends sooner never calls slow, and pays for a timer set and stopped,
// about half a microsecond: worth it on operations of a millisecond or
// more.
//
// The operation returns only once slow has returned, so no call of it
// outlives the operation; a panic or runtime.Goexit of slow is passed on
// by the operation as a callback's is, unless the operation itself
// panicked. Values and All count the time from the start of the range
// over them. A nil slow turns the hook off; an after that is not positive
// panics.
func (it Iter[T]) WithSlow(after time.Duration, slow func()) Iter[T] {
	if after <= 0 {
		panic(fmt.Sprintf("gopar: WithSlow was given a duration of %v; it must be positive", after))
	}
	it.s.Slow = nil
	if slow != nil {
		it.s.Slow = &pipe.Slow{After: after, Call: slow}
	}
	return it
}

// WithSlow returns it with its terminal operations calling slow once one
// has run for longer than after; see Iter.WithSlow.
func (it Nums[T]) WithSlow(after time.Duration, slow func()) Nums[T] {
	return Nums[T]{it.Iter.WithSlow(after, slow)}
}

// WithSlow returns r with its terminal operations, Blocks and
// ReduceBlocks included, calling slow once one has run for longer than
// after; see Iter.WithSlow.
func (r Ints) WithSlow(after time.Duration, slow func()) Ints {
	return Ints{r.Nums.WithSlow(after, slow)}
}
