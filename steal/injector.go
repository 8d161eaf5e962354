package steal

// The injector: a Michael–Scott lock-free linked queue.
//
// # The algorithm in a few words
//
// A singly linked list runs from head to tail. head always points at a dummy
// node whose value has already been taken; the queue's items are in the nodes
// after it. Push links a new node after the last one with a CAS on its next
// pointer, then swings tail to it. Steal advances head to head.next with a CAS;
// the node it advanced to becomes the new dummy, and its value is the item.
//
// # Invariants
//
//  1. head and tail are never nil once the queue is initialised (lazily, by
//     the first Push, so that the zero value works).
//  2. A node's next pointer goes from nil to a node once (Push's CAS) and never
//     changes again.
//  3. tail is the last node or its predecessor: any goroutine that finds
//     tail.next non-nil swings tail forward before doing anything else.
//  4. head never passes tail: Steal swings a lagging tail before advancing
//     head past it.
//  5. A node's val is written by its Push before the node is linked, and read
//     and cleared only by the one Steal whose CAS made the node the new head,
//     after that CAS. So val needs no atomic access.
//  6. A node's seq is one more than its predecessor's, fixed before linking, so
//     tail.seq - head.seq is the number of items (off by at most one while tail
//     lags): Len costs no shared counter.
//
// # Memory ordering
//
// Go's atomics are sequentially consistent and give happens-before from a
// store to the load that observes it. Push writes val and seq, then publishes
// the node with the CAS on the predecessor's next; every reader reaches the
// node through an atomic load of next, head or tail, so it sees val and seq.
//
// # No ABA, no use-after-free
//
// Nodes are allocated by each Push and never reused; a dequeued node is freed
// by the garbage collector only when no goroutine still holds a pointer to it.
// So a CAS from a node pointer can never succeed on a recycled node, the
// problem that forces tagged pointers or hazard pointers on C implementations.

import (
	"sync/atomic"

	"golang.org/x/sys/cpu"
)

// node is one link of the injector's list.
type node[T any] struct {
	next atomic.Pointer[node[T]]
	val  *T    // owned by the Push that links the node, then by the Steal that dequeues it
	seq  int64 // position in the queue; immutable once linked
}

// Injector is an unbounded lock-free multi-producer multi-consumer FIFO queue
// of *T. A worker pool uses it for work submitted from outside the pool, while
// each worker keeps its own work in a Deque.
//
// Push allocates one small node per item, which suits work that arrives now
// and then (one item per external call into the pool), not a per-item hot
// path.
//
// The zero value is an empty queue ready to use. Any goroutine may call any
// method. An Injector must not be copied after first use.
type Injector[T any] struct {
	_ cpu.CacheLinePad

	// head points at the dummy node before the first item. Advanced by
	// consumers (Steal) with CAS.
	head atomic.Pointer[node[T]]
	_    cpu.CacheLinePad

	// tail points at the last node, or its predecessor while a Push is
	// between linking and swinging. Advanced by anyone with CAS.
	tail atomic.Pointer[node[T]]
	_    cpu.CacheLinePad
}

// Push adds x at the back of the queue. Any goroutine may call it.
// It panics if x is nil, because Steal reports an empty queue with nil.
func (q *Injector[T]) Push(x *T) {
	if x == nil {
		panic("steal: Injector.Push(nil)")
	}
	n := &node[T]{val: x}
	for {
		// Where does the list end now?
		t := q.tail.Load()
		if t == nil {
			// Never used: install the dummy node (slow path) and look again.
			q.init()
			continue
		}
		// Is t really the last node?
		next := t.next.Load()
		if next != nil {
			// No: a Push linked a node and has not swung tail yet. Help it.
			q.tail.CompareAndSwap(t, next)
			continue
		}
		// Yes, as far as we know. Try to link our node after it; this CAS is
		// what publishes n (and its val and seq) to consumers.
		n.seq = t.seq + 1
		if t.next.CompareAndSwap(nil, n) {
			// Linked. Swing tail to it; if this fails, someone helped already.
			q.tail.CompareAndSwap(t, n)
			return
		}
		// Another Push linked first. Start over from the new end.
	}
}

// Steal removes and returns the item at the front of the queue, the oldest
// one. Any goroutine may call it. It returns Empty if the queue was empty and
// Retry if it lost a race with another consumer, in which case the queue may
// still hold items and trying again is worthwhile.
func (q *Injector[T]) Steal() (*T, Status) {
	for {
		// The dummy node; the first item, if any, is right after it.
		h := q.head.Load()
		if h == nil {
			// Never pushed to.
			return nil, Empty
		}
		next := h.next.Load()
		if next == nil {
			return nil, Empty
		}
		// Is tail lagging behind the node we are about to dequeue?
		if t := q.tail.Load(); t == h {
			// Yes: swing it first so that head never passes tail, then look
			// again. This is helping, not a lost race, so we do not Retry.
			q.tail.CompareAndSwap(t, next)
			continue
		}
		// Claim the first item by making its node the new dummy.
		if !q.head.CompareAndSwap(h, next) {
			// Another consumer took it first.
			return nil, Retry
		}
		// next is ours alone now (invariant 5): take its value and clear it,
		// so the dummy does not keep the item alive.
		x := next.val
		next.val = nil
		return x, Success
	}
}

// IsEmpty reports whether the queue held no items at the moment of the call.
// It only reads two pointers, so idle workers can poll it cheaply.
func (q *Injector[T]) IsEmpty() bool {
	h := q.head.Load()
	return h == nil || h.next.Load() == nil
}

// Len returns the number of items in the queue. It is a racy snapshot, good
// for heuristics only, and never negative.
func (q *Injector[T]) Len() int {
	// Load head before tail: tail does not fall behind head (invariant 4), so
	// the difference cannot go negative except through tail lagging by one.
	h := q.head.Load()
	if h == nil {
		return 0
	}
	t := q.tail.Load()
	if t == nil {
		// The first Push is still installing the dummy node.
		return 0
	}
	n := t.seq - h.seq
	// tail may lag one node behind the real end.
	if t.next.Load() != nil {
		n++
	}
	if n < 0 {
		return 0
	}
	return int(n)
}

// init installs the initial dummy node. Slow path, once per Injector.
//
//go:noinline
func (q *Injector[T]) init() {
	// Install a dummy at head, unless another goroutine got there first.
	if q.head.Load() == nil {
		q.head.CompareAndSwap(nil, &node[T]{})
	}
	// Point tail at it. No node can be linked while tail is nil, so head
	// still is the dummy.
	q.tail.CompareAndSwap(nil, q.head.Load())
}
