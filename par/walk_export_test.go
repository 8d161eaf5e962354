package par

// Failed returns a channel closed once a source of it has failed, so that
// a test can wait for the failure instead of polling Err.
func Failed[T any](it Iter[T]) <-chan struct{} {
	ch := make(chan struct{})
	it.s.Failure.AfterFail(func() { close(ch) })
	return ch
}
