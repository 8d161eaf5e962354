package fanouts

import (
	"context"
	"errors"

	"github.com/minio/pkg/v3/sync/errgroup"
)

var errNoDisk = errors.New("no disk")

// 105: minio's errgroup, one task per disk, the errors declared by the
// Wait's statement: a slice of errors the callback fills by index.
func ixDisks(ctx context.Context, disks []string) []error {
	g := errgroup.WithNErrs(len(disks))
	for index := range disks { // want `fan-out: a goroutine per item on minio's errgroup`
		g.Go(func() error {
			if disks[index] == "" {
				return errNoDisk
			}
			return check(ctx, disks[index])
		}, index)
	}
	errs := g.Wait()
	return errs
}

// 105b: a limit, and the Wait read in a range: the errors get a name of
// their own, and the limit Blocking's.
func ixLimit(ctx context.Context, buckets []string) error {
	g := errgroup.WithNErrs(len(buckets)).WithConcurrency(50)
	for index := range buckets { // want `fan-out: a goroutine per item on minio's errgroup`
		g.Go(func() error {
			return check(ctx, buckets[index])
		}, index)
	}
	for _, err := range g.Wait() {
		if err != nil {
			return err
		}
	}
	return nil
}

// 105c: the loop skips missing peers with continue, and the Wait is an
// argument: the skip returns at the callback's start.
func ixSkip(ctx context.Context, peers []*string, quorum int) error {
	g := errgroup.WithNErrs(len(peers))
	for index := range peers { // want `fan-out: a goroutine per item on minio's errgroup`
		if peers[index] == nil {
			continue
		}
		g.Go(func() error {
			return check(ctx, *peers[index])
		}, index)
	}
	return reduceErrs(g.Wait(), quorum)
}

func reduceErrs(errs []error, quorum int) error {
	n := 0
	for _, err := range errs {
		if err == nil {
			n++
		}
	}
	if n < quorum {
		return errNoDisk
	}
	return nil
}

// 105d: the group keeps fewer errors than there are items (the rest are
// dropped): no fix.
func ixFewer(ctx context.Context, xs []string) []error {
	g := errgroup.WithNErrs(len(xs) / 2)
	for index := range xs { // want `fan-out: a goroutine per item on minio's errgroup.*no fix: the group keeps a number of errors other than the loop's number of items`
		g.Go(func() error { return check(ctx, xs[index]) }, index)
	}
	return g.Wait()
}

// 105e: every task keeps its error at index 0: no fix.
func ixOneSlot(ctx context.Context, xs []string) []error {
	g := errgroup.WithNErrs(len(xs))
	for index := range xs { // want `fan-out: a goroutine per item on minio's errgroup.*no fix: the group's index is not the loop's index`
		g.Go(func() error { return check(ctx, xs[index]) }, 0)
	}
	return g.Wait()
}

// 105f: the caller drops the errors (g.Wait() as a statement): the
// callback calls the task and drops its error too.
func ixDropped(ctx context.Context, disks []string) {
	g := errgroup.WithNErrs(len(disks))
	for index, disk := range disks { // want `fan-out: a goroutine per item on minio's errgroup`
		if disk == "" {
			continue
		}
		g.Go(func() error {
			_ = check(ctx, disks[index])
			return nil
		}, index)
	}
	g.Wait()
}

// 105g: the group is assigned afresh for a second fan-out after the first
// one's Wait (minio's HealBucket): the first gets its fix and keeps the
// group's name declared for the second, which uses the group before its
// loop, and gets none.
func ixReused(ctx context.Context, peers []string) error {
	g := errgroup.WithNErrs(len(peers))
	for index := range peers { // want `fan-out: a goroutine per item on minio's errgroup`
		g.Go(func() error { return check(ctx, peers[index]) }, index)
	}
	errs := g.Wait()
	if err := reduceErrs(errs, len(peers)/2); err != nil {
		return err
	}
	g = errgroup.WithNErrs(len(peers))
	for index := range peers { // want `fan-out: a goroutine per item on minio's errgroup.*no fix: the group is used before the loop`
		g.Go(func() error { return check(ctx, peers[index]+"/heal") }, index)
	}
	errs = g.Wait()
	return reduceErrs(errs, len(peers)/2)
}

// 105h: 105g after its fix: the group, declared without a value, is
// assigned just before its loop, and its errors go to a variable declared
// earlier: both lines go, and the errors are a slice assigned there.
func ixReusedFixed(ctx context.Context, peers []string) error {
	var g *errgroup.Group
	errs := make([]error, len(peers))
	if err := reduceErrs(errs, len(peers)/2); err != nil {
		return err
	}
	g = errgroup.WithNErrs(len(peers))
	for index := range peers { // want `fan-out: a goroutine per item on minio's errgroup`
		g.Go(func() error { return check(ctx, peers[index]+"/heal") }, index)
	}
	errs = g.Wait()
	return reduceErrs(errs, len(peers)/2)
}
