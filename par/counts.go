package par

import (
	"sync"
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// Counting in the memory of one map. CountBy and Counts count into a map
// per goroutine, as a hand-written fan-out does, while the maps are small:
// with few keys (the words of a text) they stay in the cores' caches, and
// merging them at the end costs nothing that matters. With many keys, a
// map per goroutine holds the result once per goroutine, and the merge
// runs on one goroutine over all of them. So the counts move into maps
// that the operation's goroutines share, where each key is counted once:
//
//   - Once the goroutines' maps hold localKeys keys in all, the goroutine
//     that sees it moves its counts there (and the others, from then on,
//     when their maps next grow by localStep keys), and then sends its keys
//     there in batches instead of counting them itself. A count with fewer
//     keys, times the goroutines, never shares: a map per goroutine that
//     stays in its core's cache is the fastest way to count.
//   - The shared counts are first split into countShards maps by a hash of
//     the key, each with a lock of its own, so that the goroutines update
//     them in parallel; a goroutine keeps a batch per shard.
//   - Once the shards hold bigKeys keys, they are merged into one map,
//     which the goroutines then update one batch at a time, under one
//     lock: past that size the result is held once, not once in the
//     shards and again in the map that a merge at the end would build.
//     The key function still runs in parallel, and the updates run back
//     to back, batch by batch, faster than a loop that interleaves them
//     with the key function.
//
// So a count holds at most its result, about bigKeys keys more while the
// shards are merged, localKeys keys in the goroutines' own maps, and a few
// batches per goroutine.
// The thresholds are in counts_size.go (and counts_small.go, for the
// gopar_small build, whose tiny values send the tests' counts through
// every path).

// counter is the accumulator of one goroutine of a count: a map of its own,
// or, once it sends, its batches of keys for the shared counts.
type counter[K comparable] struct {
	local   map[K]int // made on the first key, on the goroutine that counts
	told    int       // the keys of local added to shared.local
	sending bool      // the counts are in shared: send keys there
	shards  [][]K     // by shard: the keys not yet sent, while shared is sharded
	keys    []K       // the keys not yet sent, once shared holds one map
	shared  *sharedCounts[K]
	maps    *pipe.Apart[map[K]int] // makes local, apart from the other counters' maps
}

// sharedCounts are the counts that a count's goroutines share once one of
// them has many keys. It is nil for a count whose counters keep their own
// maps whatever their size: counts in index order under a context, whose
// runs past a cut are dropped (see CountBy).
type sharedCounts[K comparable] struct {
	once   sync.Once // makes what follows, when the first counter shares
	hash   func(K) uint64
	local  atomic.Int64 // keys in the counters' own maps, about (counted)
	on     atomic.Bool  // a counter sends here
	merged atomic.Bool  // one holds the counts; the shards are nil
	added  atomic.Int64 // keys added to the shards
	mu     sync.RWMutex // read-held to update a shard, held to merge them
	shards []countShard[K]
	oneMu  sync.Mutex // guards one
	one    map[K]int
}

// countShard is one of the shared counts' maps, alone on its cache lines.
type countShard[K comparable] struct {
	mu sync.Mutex
	m  map[K]int
	_  [48]byte
}

// count counts the keys that fold gives for the items of s, into one map
// (see above), and returns it; with ordered runs (under a context, without
// Unordered), every run counts into a map of its own, combined in index
// order, so that the counts are those of a prefix of the source.
func count[T any, K comparable](s pipe.Spec[T], fold func(c *counter[K], xs []T) *counter[K]) map[K]int {
	var shared *sharedCounts[K]
	if s.Unordered || s.Context == nil {
		shared = new(sharedCounts[K])
	}
	maps := pipe.NewApart(emptyMap[K, int])
	c := keyedFold(s, true,
		func() *counter[K] { return &counter[K]{shared: shared, maps: maps} },
		fold,
		func(a, b *counter[K]) *counter[K] {
			if !a.sending && !b.sending {
				a.local = mergeCounts(a.local, b.local)
				return a
			}
			a.share()
			b.share()
			return a
		})
	if shared == nil || !shared.on.Load() {
		if c.local == nil {
			return map[K]int{}
		}
		return c.local
	}
	c.share()
	return shared.result()
}

// start makes the shared counts' maps, when the first counter shares.
func (s *sharedCounts[K]) start() {
	s.hash = comparableHasher[K]()
	if s.hash == nil {
		s.merged.Store(true) // no hash to shard by
		s.one = map[K]int{}
		return
	}
	s.shards = make([]countShard[K], countShards)
	maps := pipe.NewApart(emptyMap[K, int]) // two goroutines write two shards at once
	for i := range s.shards {
		s.shards[i].m = maps.Make()
	}
}

// own returns the counter's own map, made on its first use, or nil once
// the counter sends its keys to the shared counts.
func (c *counter[K]) own() map[K]int {
	if c.sending {
		return nil
	}
	if c.local == nil {
		c.local = c.maps.Make()
	}
	return c.local
}

// counted says that the counter's own map has had keys added. Every
// localStep keys it adds them to the count of keys in the goroutines' own
// maps; past localKeys in all, or once another counter shares, its counts
// move to the shared counts.
func (c *counter[K]) counted() {
	n := len(c.local)
	if n < c.told+localStep || c.shared == nil {
		return
	}
	if s := c.shared; s.on.Load() || s.local.Add(int64(n-c.told)) > localKeys {
		c.share()
		return
	}
	c.told = n
}

// send adds k to the counter's batch for the shared counts, and sends the
// batch once it is full.
func (c *counter[K]) send(k K) {
	if c.keys != nil {
		c.keys = append(c.keys, k)
		if len(c.keys) >= countBatch {
			c.flushOne(false)
		}
		return
	}
	i := c.shared.shard(k)
	b := append(c.shards[i], k)
	c.shards[i] = b
	if len(b) >= shardBatch {
		c.flushShard(i)
	}
}

// flushShard adds the batch of shard i to it, or, if the shards have been
// merged meanwhile, moves the counter's batches to the one map's.
func (c *counter[K]) flushShard(i int) {
	s := c.shared
	s.mu.RLock()
	if s.merged.Load() {
		s.mu.RUnlock()
		c.toOne()
		return
	}
	sh := &s.shards[i]
	sh.mu.Lock()
	n := len(sh.m)
	for _, k := range c.shards[i] {
		sh.m[k]++
	}
	n = len(sh.m) - n
	sh.mu.Unlock()
	s.mu.RUnlock()
	c.shards[i] = c.shards[i][:0]
	if s.added.Add(int64(n)) > bigKeys {
		s.merge()
	}
}

// toOne moves the counter's batches by shard into its batch for the one
// map, once the shards have been merged.
func (c *counter[K]) toOne() {
	keys := make([]K, 0, countBatch)
	for i, b := range c.shards {
		keys = append(keys, b...)
		c.shards[i] = nil
	}
	c.shards, c.keys = nil, keys
	c.flushOne(false)
}

// flushOne adds the counter's batch to the one map if nobody holds it, or
// whatever that takes once the batch holds countBatchMost keys or force
// says so.
func (c *counter[K]) flushOne(force bool) {
	s := c.shared
	if force || len(c.keys) >= countBatchMost {
		s.oneMu.Lock()
	} else if !s.oneMu.TryLock() {
		return
	}
	for _, k := range c.keys {
		s.one[k]++
	}
	s.oneMu.Unlock()
	c.keys = c.keys[:0]
}

// share moves what the counter holds, its own map or its batches, into the
// shared counts; from then on the counter sends its keys there.
func (c *counter[K]) share() {
	s := c.shared
	if !c.sending {
		c.sending = true
		s.once.Do(s.start)
		s.on.Store(true)
		if !s.merged.Load() {
			c.shards = make([][]K, countShards)
		} else {
			c.keys = make([]K, 0, countBatch)
		}
		s.add(c.local)
		c.local = nil
	}
	if c.keys == nil && s.merged.Load() {
		c.toOne()
	}
	if c.keys != nil {
		c.flushOne(true)
		return
	}
	for i, b := range c.shards {
		if len(b) > 0 {
			c.flushShard(i)
		}
	}
	if c.keys != nil {
		c.flushOne(true) // the shards were merged during the flushes
	}
}

// shard returns the shard of key k. It takes the hash's upper half: a
// shard's map, hashing its keys with a seed of its own, would otherwise
// find its keys alike in the low bits that it compares first, if the two
// hashes agree there.
func (s *sharedCounts[K]) shard(k K) int { return int(s.hash(k) >> 32 % countShards) }

// add adds the counts of m to the shared counts.
func (s *sharedCounts[K]) add(m map[K]int) {
	if len(m) == 0 {
		return
	}
	s.mu.RLock()
	if s.merged.Load() {
		s.mu.RUnlock()
		s.oneMu.Lock()
		for k, n := range m {
			s.one[k] += n
		}
		s.oneMu.Unlock()
		return
	}
	var by [countShards]map[K]int
	for k, n := range m {
		i := s.shard(k)
		if by[i] == nil {
			by[i] = map[K]int{}
		}
		by[i][k] = n
	}
	added := 0
	for i, part := range by {
		sh := &s.shards[i]
		sh.mu.Lock()
		before := len(sh.m)
		for k, n := range part {
			sh.m[k] += n
		}
		added += len(sh.m) - before
		sh.mu.Unlock()
	}
	s.mu.RUnlock()
	if s.added.Add(int64(added)) > bigKeys {
		s.merge()
	}
}

// merge merges the shards into one map, once.
func (s *sharedCounts[K]) merge() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.merged.Load() {
		return
	}
	s.oneMu.Lock()
	s.one = s.union()
	s.oneMu.Unlock()
	s.merged.Store(true)
}

// union returns the shards' counts in one map, and lets the shards go.
// s.mu is held, or every counter has finished.
func (s *sharedCounts[K]) union() map[K]int {
	n := 0
	for i := range s.shards {
		n += len(s.shards[i].m)
	}
	m := make(map[K]int, n)
	for i := range s.shards {
		for k, c := range s.shards[i].m {
			m[k] = c
		}
		s.shards[i].m = nil
	}
	return m
}

// result returns the counts, once every counter has shared what it held.
func (s *sharedCounts[K]) result() map[K]int {
	if s.merged.Load() {
		return s.one
	}
	return s.union()
}

// mergeCounts adds the counts of the smaller map into the larger.
func mergeCounts[K comparable](a, b map[K]int) map[K]int {
	if len(b) > len(a) {
		a, b = b, a
	}
	for k, n := range b {
		a[k] += n
	}
	return a
}
