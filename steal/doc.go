// Package steal provides the lock-free queues under gopar's worker pool: a
// Chase-Lev work-stealing [Deque] per worker and an [Injector] for work
// submitted from outside the pool.
//
// A worker pushes the tasks it creates onto its own Deque and pops them back
// last in, first out, so that it keeps working on what is hot in its cache.
// When it runs dry it looks for work elsewhere: first in the pool's Injector,
// where goroutines outside the pool drop new jobs, then in the deques of other
// workers, stealing from the opposite end, first in, first out, which in
// divide-and-conquer work hands the thief the biggest pending piece.
//
// Both queues hold pointers (*T), and nil means "nothing". Steal operations
// report a [Status] with three outcomes, so that losing a race ([Retry]) is
// never mistaken for an empty queue ([Empty]): a worker must not go to sleep
// after a Retry.
//
// Neither queue uses locks, epochs or hazard pointers: the garbage collector
// frees a replaced ring or a dequeued node only once no goroutine can still
// reach it, which is all the memory reclamation lock-free code needs. Both keep
// no reference to items they have handed out, so the collector can free those
// too.
//
// Most programs use these types through gopar's runtime package rather than
// directly. This is how the pieces fit, in the loop an idle worker runs to
// find a task (the package Example runs it):
//
//	// findTask returns the next task for the worker that owns local.
//	func findTask[T any](local *steal.Deque[T], global *steal.Injector[T], victims []*steal.Deque[T]) *T {
//		// Our own deque first: the most recently pushed task, LIFO.
//		if t := local.Pop(); t != nil {
//			return t
//		}
//		for {
//			retry := false
//			// Then work injected from outside the pool, FIFO.
//			switch t, s := global.Steal(); s {
//			case steal.Success:
//				return t
//			case steal.Retry:
//				retry = true
//			}
//			// Then the oldest task of another worker. (A real pool starts at
//			// a random victim, so that thieves do not all pile onto one.)
//			for _, v := range victims {
//				switch t, s := v.Steal(); s {
//				case steal.Success:
//					return t
//				case steal.Retry:
//					retry = true
//				}
//			}
//			// Only when every queue said Empty is there nothing to do.
//			if !retry {
//				return nil
//			}
//		}
//	}
package steal
