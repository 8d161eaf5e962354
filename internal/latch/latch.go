// Package latch is the one-shot signal that the pool's waits end on. A
// participant of the pool that has nothing left to run parks on the latch it
// waits for, and whoever sets the latch wakes it.
//
// A latch knows its waiter only by the waiter's wake channel (a channel with
// a buffer of one, which every wake-up of that participant sends a token
// on), so that the latch sits below the pool that parks on it: runtime's
// jobs and scopes embed one, and so do internal/pipe's loops, by value.
package latch

import "sync/atomic"

// Latch is a one-shot signal: it starts unset, and Set sets it for good
// (until Reset). The zero value is an unset latch.
//
// # Memory ordering
//
// Everything the setting goroutine did before Set happens before IsSet
// returns true in the waiting goroutine.
type Latch struct {
	set atomic.Bool
	// waiter is the wake channel of the participant parked (or about to
	// park) on the latch; Set sends it a token. A wake-up cannot be lost:
	// Set stores set and then loads waiter, Park stores waiter and then
	// loads set (Watch; runtime/SLEEP.md, "Latches"), so one of the two sees the
	// other's store.
	waiter atomic.Pointer[chan struct{}]
}

// Set sets the latch and wakes its waiter, if one is parked.
func (l *Latch) Set() {
	l.set.Store(true)
	// The load comes after the store: a waiter that registered too late to
	// be seen here sees set instead.
	if c := l.waiter.Load(); c != nil {
		select {
		case *c <- struct{}{}:
		default: // a token is there already: the waiter wakes for it
		}
	}
}

// IsSet reports whether Set has been called since the latch was made or
// last reset.
func (l *Latch) IsSet() bool { return l.set.Load() }

// Reset makes the latch unset again, with no waiter. Only its one waiter
// calls it, between waits, once nothing can set it for the wait before.
func (l *Latch) Reset() {
	l.set.Store(false)
	l.waiter.Store(nil)
}

// Watch registers wake, the wake channel of the participant about to park
// on l, as l's waiter: Set sends it a token from now on. The participant
// then looks at l once more, and blocks on wake only if l is unset:
//
//	l.Watch(&wake)
//	if !l.IsSet() {
//		<-wake
//	}
//	l.Unwatch()
//
// A token may be stale (another wake-up of the same participant), so the
// participant looks at l again when it wakes.
func (l *Latch) Watch(wake *chan struct{}) { l.waiter.Store(wake) }

// Unwatch ends Watch: Set no longer wakes the participant.
func (l *Latch) Unwatch() { l.waiter.Store(nil) }
