package runtime

import "github.com/gopar-dev/gopar/internal/link"

// init hands the package's plumbing to internal/link, for internal/plumb to
// assert into typed variables and the layers above to call. Each value's
// type is the one plumb asserts: a change here that plumb does not follow
// fails when the program starts, in plumb's init.
func init() {
	link.Block = block
	link.Hungry = hungry
	link.Inject = inject
	link.Offer = offer
	link.Spread = spread
	link.Wait = waitLatch
	link.SpawnTask = func(s Scope, t interface{ Run(Scope) }) { spawnTask(s, t) }

	link.Promote = func(p *Pool, f func()) (slot any, gen uint64) {
		if pr := promote(p, f); pr.s != nil {
			return pr.s, pr.gen
		}
		return nil, 0
	}
	link.Reclaim = func(p *Pool, slot any, gen uint64) bool { return promotionOf(p, slot, gen).Reclaim() }
	link.WaitPromoted = func(p *Pool, slot any, gen uint64) *Panic { return promotionOf(p, slot, gen).Wait() }
	link.CheckEnded = func(p *Pool, slot any, gen uint64, caller string) {
		promotionOf(p, slot, gen).CheckEnded(caller)
	}

	link.NewPanic = newPanic
	link.Catch = catch
	link.Unwinding = unwinding
	link.Raise = raise
	link.Stronger = stronger
	link.CallAfter = callAfter
	link.Record = record
}

// promotionOf is the Promotion that link.Promote handed out as its slot
// and generation (a nil slot: the zero Promotion, never published).
func promotionOf(p *Pool, slot any, gen uint64) promotion {
	s, _ := slot.(*boardSlot)
	return promotion{p, s, gen}
}
