package runtime

import (
	"github.com/gopar-dev/gopar/internal/latch"
	"github.com/gopar-dev/gopar/internal/link"
)

// init hands the package's plumbing to internal/link, for internal/plumb to
// assert into typed variables and the layers above to call. Each value's
// type is the one plumb asserts: a change here that plumb does not follow
// fails when the program starts, in plumb's init.
func init() {
	link.Block = block
	link.Hungry = hungry
	link.Inject = inject
	link.Offer = offer
	link.Enter = enter
	link.Leave = leave
	link.Open = openRegion
	link.Close = closeRegion
	link.Abandon = abandonRegion
	link.Wait = waitLatch
	link.SpawnTask = spawnTask
	link.Bound = bound

	link.Promote = promoteSlot
	link.Reclaim = reclaimSlot
	link.WaitPromoted = waitSlot
	link.CheckEnded = checkSlot

	link.NewPanic = newPanic
	link.Catch = catch
	link.Unwinding = unwinding
	link.Raise = raise
	link.Stronger = stronger
	link.CallAfter = callAfter
	link.Record = record
}

// enter is Pool.Do's way in, for internal/plumb: a nil Pool panics.
func enter(p *Pool) (w, lease *Worker) {
	if p == nil {
		refuse("Enter", nilPool)
	}
	return p.participant()
}

// leave releases the lease enter returned, if any.
func leave(p *Pool, lease *Worker) {
	if lease != nil {
		p.release(lease)
	}
}

// A region travels up as its *spreadRegion in an any, which costs no
// allocation, and comes back to closeRegion or abandonRegion.

func openRegion(w *Worker, n int, help func(*Worker)) any { return open(w, n, help) }

func closeRegion(w *Worker, region any, done *latch.Latch) {
	region.(*spreadRegion).close(w, done)
}

func abandonRegion(w *Worker, region any) { region.(*spreadRegion).abandon(w) }

// A promotion travels up as its board slot, in an any, and its generation:
// internal/plumb's Promotion holds the two beside the pool, and hands them
// back to the functions below, which make the promotion again. A pointer
// in an any costs no allocation, so foldFirst's promotion stays free of
// them.

// promoteSlot is promote, for internal/plumb: a nil slot if nothing was
// published.
func promoteSlot(p *Pool, f func()) (slot any, gen uint64) {
	if pr := promote(p, f); pr.s != nil {
		return pr.s, pr.gen
	}
	return nil, 0
}

// promotionOf is the promotion that promoteSlot handed out as its slot and
// generation (a nil slot: the zero promotion, never published).
func promotionOf(p *Pool, slot any, gen uint64) promotion {
	s, _ := slot.(*boardSlot)
	return promotion{p, s, gen}
}

func reclaimSlot(p *Pool, slot any, gen uint64) bool {
	return promotionOf(p, slot, gen).Reclaim()
}

func waitSlot(p *Pool, slot any, gen uint64) *Panic {
	return promotionOf(p, slot, gen).Wait()
}

func checkSlot(p *Pool, slot any, gen uint64, caller string) {
	promotionOf(p, slot, gen).CheckEnded(caller)
}
