// Package partition is gopar's work-stealing range partitioner: it hands out
// the indices of a parallel loop in blocks to the goroutines running it,
// balancing uneven work by letting idle ones steal from busy ones.
//
// # What it exports
//
// Everything it exports is what a user of a work-stealing partitioner
// needs, and package internal/pipe uses it as any user would; none of it is
// plumbing for one layer above. A [Range] is the two-party protocol
// ([Range.Take] for the owner, [Range.Steal] for a thief, with the [Status]
// of a steal); a [Loop] ([NewLoop], [NewGrowingLoop]) runs a whole index
// range with [Participant]s, which enter, take blocks with
// [Participant.Next] and leave; the cut ([Loop.CutAt], [Loop.Cancel]) ends
// a search early. The rest sizes and watches a loop: [Participant.Left]
// (what a participant's range holds, to size its next block),
// [Loop.Partitions] (how many helpers are worth starting), and
// [Participant.Slot], [Participant.Steals] and [Participant.RecordSteals]
// with [Stolen] (who stole what), from which a [Timeline] of the schedule
// is built: which goroutine ran which [Block] when, lane by [Lane], with
// every [Steal], drawn by [Timeline.WriteSVG]. [MaxLen] and
// [MaxParticipants] are the bounds a caller must keep to.
//
// # The algorithm in a few words
//
// A Range is a block of indices seen as
//
//	[low .. [mid .. high))
//
// Its owner takes a grain of items at a time from the bottom; [mid, high),
// the steal range, is the top quarter of what remains, and any other
// goroutine may steal it with one CAS. The owner pays one atomic store and
// one atomic load per grain, and a CAS only when it comes near the steal
// range (to shrink it to the top quarter of what is left, so thieves keep
// finding work the owner will not reach soon) or takes its last items.
//
// A Loop runs [lo, hi), any lo <= hi up to [math.MinInt, math.MaxInt), by
// participants: a participant claims a partition (a Range), runs it, claims
// the next unclaimed one, and when none is left steals from the others; what
// it steals becomes a new Range it owns, published in its slot so others can
// steal from it in turn.
//
// # The partition schedule
//
// Partitions are claimed in index order, one fetch-and-add each, and made
// when claimed, so a loop's length costs nothing up front:
//
//   - NewLoop: parts equal partitions, the best split of items that cost
//     the same (each participant claims one and nobody steals);
//   - NewGrowingLoop: partitions that start small at lo and double every
//     parts partitions up to MaxLen, so that every participant works near
//     the bottom of the loop first; an idle participant of such a loop
//     first helps one that lags (steals from a range holding more than the
//     next partition), and only then claims the next, higher partition. A loop that may be cut (a search for
//     the first match) uses it, and so does a loop too long for equal
//     partitions of at most MaxLen items (the word of a Range holds 32-bit
//     offsets): [math.MinInt, math.MaxInt) has about 2^32 partitions.
//
// # The cut
//
// CutAt(c) says that the items at or above c are no longer needed (Cancel is
// CutAt(math.MinInt)). The cut only moves down. Next reads it before every
// block: the owner drops its range once a block starts at or above the cut
// and clips a block that crosses it; a partition starting above it is never
// claimed; a thief skips a range whose base lies above it and refuses loot
// that would start above it. Refusing is a read-only exit before the CAS, so
// the protocol below is unchanged. Bound: once CutAt has returned, no Next
// hands out an item at or above the cut; what still runs above it is the
// blocks already handed out, at most one per participant.
//
// # Termination
//
// A loop is done when every participant that entered has left: a
// participant leaves only after Next returned ok=false, that is, after its
// own range gave nothing below the cut, no partition below the cut was left
// to claim, and a full scan found nothing to steal below it (no lost race).
// At that moment every item below the cut is in a claimed partition whose
// items were taken by its owner or stolen into a range owned by an active
// thief; since nobody is active, all of them ran. The count of active
// participants and a done bit share one word: the Leave that brings the
// count to zero sets the bit, and Enter refuses to join once it is set, so
// exactly one Leave sees the end and nobody can re-enter a finished loop.
// Items above the cut are simply never handed out: nothing needs to drain
// them, so a cut costs no work, whatever the loop's length.
//
// # Who writes what
//
//   - low: written only by the owner (Take), read by thieves.
//   - the word (mid, high), two 32-bit offsets from the range's base packed
//     into one uint64: replaced only by CAS, by the owner and by thieves.
//     high never increases, and while it stays the same mid never
//     decreases, so the word never takes an earlier value again.
//   - the owner's next offset, base and length: owner-only or read-only.
//
// An item below a word's mid belongs to the owner; an item in [mid, high)
// belongs to whoever replaces that word by CAS.
//
// Take(g): with l the owner's next offset and nl = min(l+g, len), store
// low = nl, then load the word (mid, high). If l >= high, everything left was
// stolen: the range is exhausted. If nl <= mid, [l, nl) is the owner's (and
// if mid is close, it tries once to CAS the word to split(nl, high)).
// Otherwise the block reaches into the steal range, or the word is stale
// (mid < l, computed by a thief from an older low): the owner claims
// [l, min(nl, high)) only by CASing the word it read to split(nl, high),
// reloading and retrying on failure.
//
// Steal: load the word (mid, high), then low x. Empty if mid >= high or
// x >= high. Else the thief's block starts at from = mid, or, if x > mid, at
// the top quarter of [x, high); it CASes the word to split(x, from) and on
// success owns [from, high). A failed CAS is a Retry.
//
// # Memory ordering
//
// Go's atomic operations are sequentially consistent, so they all happen in
// one total order that respects each goroutine's program order. Take stores
// low before it loads the word; Steal loads the word before it loads low.
// Suppose the owner takes [l, nl) without a CAS, having read a word W0 with
// nl <= W0.mid after storing low = nl, and a thief wins the CAS on a word W,
// having read low x, and claims [from, W.high) with from >= max(x, W.mid).
// Then from >= nl, so the blocks are disjoint:
//
//   - If the thief's CAS comes before the owner's load, W0 was written at or
//     after the CAS, so W0.high <= from (highs only decrease) and
//     nl <= W0.mid <= W0.high <= from.
//   - Otherwise, if the thief's load of low comes after the owner's store,
//     x >= nl (low only increases), so from >= x >= nl.
//   - Otherwise the thief loaded W before the owner's store, and W was still
//     the word at the thief's CAS after the owner's load: as the word never
//     returns to an earlier value, W0 = W and nl <= W.mid <= from.
//
// Blocks claimed by CAS are disjoint because each successful CAS claims
// items of the steal range of the word it replaces, and leaves a word whose
// range lies above everything it claimed.
//
// A simpler thief rule would report Empty when low > mid. Stealing the top
// quarter of [low, high) instead is covered by the argument above (it only
// needs from >= max(x, W.mid)). It avoids both choices the simpler rule
// leaves: Empty gives up on items the owner will not reach for a whole
// block, Retry spins on the owner until its next Take. range.pml model-checks the protocol
// with this rule; with the thief block starting at mid even when low > mid,
// or with a thief that loads low before the word, it finds a double claim.
//
// # Why a new Range per steal
//
// A thief that steals wraps its block in a new Range instead of resetting
// an exhausted one. Were a Range reused for other items, a slow thief could
// load the old word and the old low, and then, after the reset, find the new
// word equal to the old one and win its CAS, claiming items of the new
// incarnation judged by an old low: the new owner may already have taken
// them (ABA). A new object per successful steal (one small allocation)
// rules this out, and the garbage collector keeps the old object alive while
// a stale thief still holds it.
//
// The word holds 32-bit offsets, so a Range holds at most MaxLen items; a
// Loop uses more partitions when a partition would be longer (see the
// partition schedule above).
package partition
