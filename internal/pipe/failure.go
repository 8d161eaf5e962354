package pipe

// Failure is a source of items that can fail (package par's FromWalk,
// FromSeqErr and ReadLines): the operations that return an error return
// its error. A Spec carries its sources' Failure in its Config
// (Config.Failure); the adapters keep it, and ChainSpec and ZipSpec join
// both sides'.
type Failure interface {
	// Err returns the source's error: nil until it fails, that error from
	// then on.
	Err() error
	// AfterFail arranges to call f in a goroutine of its own once Err
	// returns an error (at once if it does already), as
	// context.AfterFunc does; stop undoes that, and reports whether it
	// stopped the call.
	AfterFail(f func()) (stop func() bool)
}

// JoinFailures returns the Failure of a pipeline over the sources of a
// and b: Err returns a's error if it has one, else b's. Either may be
// nil; both nil gives nil.
func JoinFailures(a, b Failure) Failure {
	switch {
	case a == nil:
		return b
	case b == nil || a == b:
		return a
	}
	return failures{a, b}
}

type failures [2]Failure

func (fs failures) Err() error {
	if err := fs[0].Err(); err != nil {
		return err
	}
	return fs[1].Err()
}

func (fs failures) AfterFail(f func()) (stop func() bool) {
	// f may be called twice, once per side that fails: the callers'
	// f (a context's cancel) keeps the first.
	stop0, stop1 := fs[0].AfterFail(f), fs[1].AfterFail(f)
	return func() bool {
		s0 := stop0()
		s1 := stop1()
		return s0 || s1
	}
}
