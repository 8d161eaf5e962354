package fanouts

import (
	"context"
	"strconv"
	"sync"

	"golang.org/x/sync/errgroup"
)

// tallies counts tally's calls.
var tallies int

// tally counts its calls: a call of it is not a read.
func tally(s string) int {
	tallies++
	return len(s)
}

// pools holds state that a fan-out's loop reads through methods.
type pools struct {
	mu        sync.RWMutex
	suspended map[int]bool
	names     []string
	refreshed int
}

// isSuspended only reads, under a read lock.
func (z *pools) isSuspended(i int) bool {
	z.mu.RLock()
	defer z.mu.RUnlock()
	return z.suspended[i]
}

// lookup only reads, and counts nothing.
func (z *pools) lookup(i int) (string, bool) {
	if i >= len(z.names) {
		return "", false
	}
	return z.names[i], true
}

// client refreshes what it reads: a call with an effect.
func (z *pools) client(i int) string {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.refreshed++
	return z.names[i]
}

// suspend writes what isSuspended reads.
func (z *pools) suspend(i int) {
	z.mu.Lock()
	z.suspended[i] = true
	z.mu.Unlock()
}

// 114: the loop skips the items that a method reads as suspended, a
// method that only reads (under a read lock): the skip moves into the
// callback.
func wgSkipReadOnly(z *pools, xs []string, out []int) {
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		// Suspended items are skipped; the comment moves with the skip.
		if z.isSuspended(i) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = work(x)
		}()
	}
	wg.Wait()
}

// 114b: the method the loop calls writes (it counts refreshes): moving it
// would change when and on which goroutine it runs, so no fix.
func wgDeclCalls(z *pools, xs []string, out []int) {
	var wg sync.WaitGroup
	for i := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`name := z.client\\(i\\)`\\)"
		name := z.client(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = work(name)
		}()
	}
	wg.Wait()
}

// 114c: the method only reads, but the goroutines suspend pools, which
// changes what it reads: no fix.
func wgSkipWritten(z *pools, xs []string) {
	var wg sync.WaitGroup
	for i := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`if z.isSuspended\\(i\\) {`\\)"
		if z.isSuspended(i) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			z.suspend(i + 1)
		}()
	}
	wg.Wait()
}

// 114d: a read-only method with two results, and a String method, in the
// loop's declarations: both move.
func wgTwoResults(z *pools, xs []int, ids []stringer, out []int) {
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		name, ok := z.lookup(x)
		id := ids[i].String()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok {
				out[i] = work(name + id)
			}
		}()
	}
	wg.Wait()
}

type stringer struct{ s string }

func (s stringer) String() string { return s.s }

// 115: the goroutine's argument is an item of another slice, at the
// loop's index (minio's poolOpts[i]): the callback reads it.
func wgOtherSlice(xs []string, opts []int, out []int) {
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func(x string, opt int) {
			defer wg.Done()
			out[i] = work(x) + opt
		}(x, opts[i])
	}
	wg.Wait()
}

// 115b: the goroutines write the items of the slice that the loop reads
// for the argument: no fix.
func wgOtherSliceWritten(xs []string, opts []int) {
	var wg sync.WaitGroup
	for i, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the goroutine's argument opts\\[i\\] is not a loop variable"
		wg.Add(1)
		go func(x string, opt int) {
			defer wg.Done()
			opts[(i+1)%len(opts)] = work(x) + opt
		}(x, opts[i])
	}
	wg.Wait()
}

type shape interface{ area() int }

type square struct{ side int }

func (s *square) area() int { return s.side * s.side }

// 116: the loop keeps the items of one type (esbuild's linker): the
// assertion and its skip move into the callback.
func wgAssert(files []shape, out []int) {
	var wg sync.WaitGroup
	for i, f := range files { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		sq, ok := f.(*square)
		if !ok {
			continue
		}
		wg.Add(1)
		go func(i int, sq *square) {
			defer wg.Done()
			out[i] = sq.area()
		}(i, sq)
	}
	wg.Wait()
}

// safeClose closes a channel that may be closed already.
func safeClose[T any](c chan<- T) {
	defer func() { _ = recover() }()
	close(c)
}

// subscribe hands c to a hub, which sends on it.
func subscribe(c chan<- bool) { hub = append(hub, c) }

var hub []chan<- bool

// readAll asks each disk on goroutines of its own and counts the answers
// on a channel of its own, which safeClose closes.
func readAll(ctx context.Context, disks []string) int {
	done := make(chan bool, len(disks))
	go func() {
		var wg sync.WaitGroup
		for _, d := range disks { // want `fan-out: a goroutine per item with a sync.WaitGroup`
			wg.Go(func() { done <- check(ctx, d) == nil })
		}
		wg.Wait()
		safeClose(done)
	}()
	n := 0
	for ok := range done {
		if ok {
			n++
		}
	}
	return n
}

// 117: each task ranges over a channel of its own (readAll's done), closed
// by a close that tolerates a closed channel: not a wait on the other
// tasks, and the fan-out gets its fix.
func wgOwnClosed(ctx context.Context, sets [][]string, out []int) {
	var wg sync.WaitGroup
	for i, s := range sets { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = readAll(ctx, s)
		}()
	}
	wg.Wait()
}

// listen hands its channel to the hub, and waits for what the hub sends.
func listen() int {
	c := make(chan bool)
	subscribe(c)
	n := 0
	for range c {
		n++
	}
	return n
}

// 117b: each task hands its channel to a hub that others send on: the
// range waits on them, and there is no fix.
func wgSubscribed(xs []string, out []int) {
	var wg sync.WaitGroup
	for i := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup whose goroutines wait \\(a range over the channel `c` in listen\\)"
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = listen()
		}()
	}
	wg.Wait()
}

// 118: the loop writes the item's own slots before the start, and a skip
// records why it skips (minio's DeleteObject): the writes move into the
// callback, which no other item's callback shares.
func wgOwnSlots(z *pools, xs []string, sizes, out []int, errs []error) {
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		if z.isSuspended(i) {
			errs[i] = context.Canceled
			continue
		}
		sizes[i] = len(x)
		wg.Add(1)
		go func(i int, x string) {
			defer wg.Done()
			out[i] = work(x)
		}(i, x)
	}
	wg.Wait()
}

// 118b: the goroutines read the slot of the item before theirs, which the
// loop writes: that slot is not the item's own, so no fix.
func wgOtherSlot(xs []string, sizes []int, out []int) {
	var wg sync.WaitGroup
	for i, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`sizes\\[i\\] = len\\(x\\)`\\)"
		sizes[i] = len(x)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i > 0 {
				out[i] = sizes[i-1]
			}
		}()
	}
	wg.Wait()
}

// 118c: the loop writes a map's entry: the callbacks would write the map
// at once, so no fix.
func wgMapSlot(xs []string, sizes map[string]int, out []int) {
	var wg sync.WaitGroup
	for i, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`sizes\\[x\\] = len\\(x\\)`\\)"
		sizes[x] = len(x)
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = work(x)
		}()
	}
	wg.Wait()
}

type quorumErr struct{ meta bool }

func (quorumErr) Error() string { return "quorum" }

// 118d: the skip declares what it tests (minio's DeleteObject), and
// records the item's error: it moves with its declaration.
func wgSkipAssert(found []error, errs []error, out []int) {
	var wg sync.WaitGroup
	for i, e := range found { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		if q, ok := e.(quorumErr); ok && !q.meta {
			errs[i] = quorumErr{meta: true}
			continue
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i] = len(e.Error())
		}(i)
	}
	wg.Wait()
}

type remote struct{ host stringer }

// 119: skips nested under an if, one reading a map by what a String
// method gives (minio's GetMetrics): they move as they are, each continue
// a return.
func wgNestedSkip(peers []*remote, hosts map[string]bool, out []int) {
	var wg sync.WaitGroup
	for i, c := range peers { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		if c == nil {
			continue
		}
		host := c.host.String()
		if len(hosts) > 0 {
			if _, ok := hosts[host]; !ok {
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = work(host)
		}()
	}
	wg.Wait()
}

// 119b: a nested if that does more than skip (it counts): no fix.
func wgNestedCount(peers []*remote, out []int) int {
	n := 0
	var wg sync.WaitGroup
	for i, c := range peers { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`if c == nil {`\\)"
		if c == nil {
			if i > 0 {
				n++
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = work(c.host.s)
		}()
	}
	wg.Wait()
	return n
}

// has only reads the items it is given.
func has(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// 114e: the skip calls a function that only reads, but reads the items of
// a slice that the goroutines write: no fix.
func wgSkipReadsWritten(xs, done []string) {
	var wg sync.WaitGroup
	for i, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`if has\\(done, x\\) {`\\)"
		if has(done, x) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			done[i] = x
		}()
	}
	wg.Wait()
}

// depth calls itself: what it does is not worked out, and a call of it
// does not move.
func depth(n *node) int {
	if n == nil {
		return 0
	}
	return 1 + depth(n.children[0])
}

// 114f: the skip calls a recursive function: no fix.
func wgSkipRecursive(ns []*node, out []int) {
	var wg sync.WaitGroup
	for i, n := range ns { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`if depth\\(n\\) > 8 {`\\)"
		if depth(n) > 8 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = len(n.children)
		}()
	}
	wg.Wait()
}

type result struct{ n int }

// 115c: each goroutine gets the address of its own result (esbuild's
// linker): the callback takes it.
func wgItemAddr(xs []string, results []result) {
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func(x string, r *result) {
			defer wg.Done()
			r.n = work(x)
		}(x, &results[i])
	}
	wg.Wait()
}

// 115d: the loop grows the slice whose item's address it hands on: no
// fix.
func wgItemAddrGrown(xs []string, results []result) []result {
	var wg sync.WaitGroup
	for i, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`results = append\\(results, result{}\\)`\\)"
		results = append(results, result{})
		wg.Add(1)
		go func(x string, r *result) {
			defer wg.Done()
			r.n = work(x)
		}(x, &results[i])
	}
	wg.Wait()
	return results
}

// tallyBoard keeps a size per item.
type tallyBoard struct{ sizes []int }

// total reads every item's size.
func (b *tallyBoard) total() int {
	n := 0
	for _, s := range b.sizes {
		n += s
	}
	return n
}

// 118e: the loop writes the item's slot of a field, and the goroutines
// call a method that reads every slot: no fix.
func wgSlotReadByCallee(b *tallyBoard, xs []string, out []int) {
	var wg sync.WaitGroup
	for i, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`b.sizes\\[i\\] = len\\(x\\)`\\)"
		b.sizes[i] = len(x)
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = b.total()
		}()
	}
	wg.Wait()
}

// counterBox counts in a field that bump writes.
type counterBox struct{ n int }

func (c *counterBox) bump() { c.n++ }

// 112c: the loop reads a field that the goroutines change through a
// method: the read stays in the loop, and there is no fix.
func wgFieldWrittenByCallee(c *counterBox, xs []string, out []int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`seen := c.n`\\)"
		seen := c.n
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			c.bump()
			mu.Unlock()
			out[i] = work(x) + seen
		}()
	}
	wg.Wait()
}

type poolErr struct {
	idx int
	err error
}

// ledger records errors in poolErr values of its own.
type ledger struct{ list []poolErr }

func (l *ledger) record(i int, err error) { l.list[i].err = err }

// 112d: the loop reads a field of its own copy of each item (pe.err), a
// field that the goroutines' method writes in other values: a copy
// changes only where the loop assigns it, and the skip moves.
func wgFieldOfCopy(l *ledger, found []poolErr, mu *sync.Mutex) {
	var wg sync.WaitGroup
	for i, pe := range found { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		if pe.err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			l.record(i, check(context.Background(), "x"))
			mu.Unlock()
		}()
	}
	wg.Wait()
}

// reset clears the box it is given, through its pointer.
func reset(c *counterBox) { *c = counterBox{} }

// 112e: the goroutines clear the box whose field the loop reads, by an
// assignment through a pointer: the read stays in the loop, and there is
// no fix.
func wgFieldClearedByCallee(c *counterBox, xs []string, out []int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`seen := c.n`\\)"
		seen := c.n
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			reset(c)
			mu.Unlock()
			out[i] = work(x) + seen
		}()
	}
	wg.Wait()
}

// 123: the loop converts its index and reads a pair of an array's items
// into variables that the goroutine uses: conversions and items move into
// the callback.
func egConverted(ranges [][2]int, out []int) error {
	var g errgroup.Group
	for i, r := range ranges { // want `fan-out: an errgroup loop; gopar replaces it with par.Slice\(ranges\).TryForEach \(first error`
		part := byte(i)
		lo, hi := r[0], r[1]
		g.Go(func() error {
			out[part] = hi - lo
			return nil
		})
	}
	return g.Wait()
}

// 123b: a conversion of a field that the goroutines clear: no fix.
func wgConvertedChanged(c *counterBox, xs []string, out []int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, x := range xs { // want "no fix: the loop does more than start the goroutines \\(`k := int64\\(c.n\\)`\\)"
		k := int64(c.n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			reset(c)
			mu.Unlock()
			out[i] = work(x) + int(k)
		}()
	}
	wg.Wait()
}

// 125: a goroutine per entry of a map sends its result on an unbuffered
// channel, and the caller works (a call that writes) before it receives
// one per entry: the par call runs in a goroutine of its own in the loop's
// place, and the rest stays.
func countedMapBeside(secrets map[string]string) (int, error) {
	results := make(chan error)
	for key, value := range secrets { // want `fan-out: a goroutine per item joined by counting receives from results; gopar replaces it`
		k := key
		v := value
		go func() {
			results <- check(context.Background(), k+v)
		}()
	}
	n := tally("header")
	for i := 0; i < len(secrets); i++ {
		if err := <-results; err != nil {
			return n, err
		}
	}
	return n, nil
}

// 125b: the same, but the caller changes the map after the loop, while
// the callbacks would still read it: no fix.
func countedMapChanged(secrets map[string]string) error {
	results := make(chan error, len(secrets))
	for key, value := range secrets { // want "fan-out: a goroutine per item joined by counting receives from results; .*no fix: the caller changes the items after the loop"
		go func() {
			results <- check(context.Background(), key+value)
		}()
	}
	secrets["header"] = "x"
	for range secrets {
		if err := <-results; err != nil {
			return err
		}
	}
	return nil
}

// 125c: the loop reads what it passes on before each start, and the caller
// works before the receives: the read would move into the callback, beside
// the caller's work, so no fix.
func countedMovedBeside(xs []string, box *counterBox) (int, error) {
	results := make(chan error)
	for _, x := range xs { // want "fan-out: a goroutine per item joined by counting receives from results; .*no fix: the loop does more than start the goroutines, and the caller works before its receives"
		n := box.n
		go func() {
			results <- check(context.Background(), x+strconv.Itoa(n))
		}()
	}
	box.n = tally("header")
	for range xs {
		if err := <-results; err != nil {
			return 0, err
		}
	}
	return box.n, nil
}

// 127: the loop numbers each item in a slice of the caller's before it
// starts the goroutine, which does not read it: the numbering stays in a
// loop of its own before the call.
func wgNumbered(xs []int, out []string, names []string) []int {
	order := make([]int, len(out))
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		// The item's place in the output.
		order[x] = i
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[x] = names[x] + "!"
		}()
	}
	wg.Wait()
	return order
}

// 127b: the goroutine reads the slice that the loop writes: the loop's
// write stays where it is, and there is no fix.
func wgNumberedRead(xs []int, out []int) {
	order := make([]int, len(out))
	var wg sync.WaitGroup
	for i, x := range xs { // want "no fix: the loop does more than start the goroutines \\(`order\\[x\\] = i`\\)"
		order[x] = i
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[x] = order[x]
		}()
	}
	wg.Wait()
}

// 127c: the loop counts into a variable that a closure the goroutine calls
// reads: no fix.
func wgCountedSeen(xs []string, out []int) {
	n := 0
	seen := func() int { return n }
	var wg sync.WaitGroup
	for i, x := range xs { // want "no fix: the loop does more than start the goroutines \\(`n\\+\\+`\\)"
		n++
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = work(x) + seen()
		}()
	}
	wg.Wait()
}

// zero clears the box through its pointer receiver.
func (c *counterBox) zero() { c.n = 0 }

// 112f: the goroutines call a method with a pointer receiver on items of
// the slice that the loop copies an item of before each start, which may
// change it: the copy stays in the loop, and there is no fix.
func wgItemMethod(boxes []counterBox, out []int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range boxes { // want "no fix: the loop does more than start the goroutines \\(`b := boxes\\[len\\(boxes\\)-1-i\\]`\\)"
		b := boxes[len(boxes)-1-i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			boxes[i].zero()
			mu.Unlock()
			out[i] = b.n
		}()
	}
	wg.Wait()
}
