package steal

import "strconv"

// Status is the outcome of a steal attempt.
//
// A steal has three outcomes, not two, so that a lost race is never confused
// with an empty queue: a worker that sees Retry knows there may still be work
// and should try again (or try elsewhere and come back) before going to sleep.
type Status uint8

const (
	// Empty means the queue had nothing to steal at the moment of the attempt.
	Empty Status = iota
	// Success means an item was taken; it is returned alongside.
	Success
	// Retry means the attempt lost a race with another thief or with the
	// owner; the queue may still hold items.
	Retry
)

// String returns "Empty", "Success" or "Retry".
func (s Status) String() string {
	switch s {
	case Empty:
		return "Empty"
	case Success:
		return "Success"
	case Retry:
		return "Retry"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}
