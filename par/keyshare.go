package par

import (
	"sync"
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// Keyed results in the memory of one map. The keyed operations whose result
// does not depend on the order of the items (CountBy and Counts always,
// ReduceByKey, CollectMap, GroupBy and GroupByKey with Unordered) fill a map
// per goroutine, as a hand-written fan-out does, while the maps are small:
// with few keys (the words of a text) they stay in the cores' caches, and
// merging them at the end costs nothing that matters. With many keys, a map
// per goroutine holds the result once per goroutine, and the merge runs on
// one goroutine over all of them. So the entries move into maps that the
// operation's goroutines share, where each key is held once:
//
//   - Once the goroutines' maps hold localKeys keys in all, the goroutine
//     that sees it moves its entries there (and the others, from then on,
//     when their maps next grow by localStep keys), and then sends its
//     items there in batches instead of adding them itself. An operation
//     with fewer keys, times the goroutines, never shares: a map per
//     goroutine that stays in its core's cache is the fastest way to fill
//     one.
//   - The shared entries are first split into keyShards maps by a hash of
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
// So an operation holds at most its result, about bigKeys keys more while
// the shards are merged, localKeys keys in the goroutines' own maps, and a
// few batches per goroutine. The thresholds are in keyshare_size.go (and
// keyshare_small.go, for the gopar_small build, whose tiny values send the
// tests' operations through every path).

// sharing says how an operation's items join its maps: put adds the unit u
// of one item (the item of a group, the value of a reduction, nothing for a
// count) to key k of a map, and join joins two values of one key, from two
// goroutines' maps. Neither may depend on the order of the items: the
// shared maps take them in no particular order.
type sharing[K comparable, V, U any] struct {
	put  func(m map[K]V, k K, u U)
	join func(a, b V) V
}

// keyer is the accumulator of one goroutine of a shared keyed operation: a
// map of its own, or, once it sends, its batches of items for the shared
// maps.
type keyer[K comparable, V, U any] struct {
	local   map[K]V // made on the first item, on the goroutine that adds
	told    int     // the keys of local added to shared.local
	sending bool    // the entries are in shared: send items there
	shards  [][]sent[K, U]
	batch   []sent[K, U] // the items not yet sent, once shared holds one map
	shared  *sharedMap[K, V, U]
	maps    *pipe.Apart[map[K]V] // makes local, apart from the other keyers' maps
}

// sent is one item on its way to the shared maps. The unit comes first, so
// that a unit of no size (a count's) adds nothing to the pair.
type sent[K comparable, U any] struct {
	u U
	k K
}

// sharedMap holds the entries that an operation's goroutines share once
// one of them has many keys. It is nil for an operation whose keyers keep
// their own maps whatever their size: counts in index order under a
// context, whose runs past a cut are dropped (see CountBy).
type sharedMap[K comparable, V, U any] struct {
	how    sharing[K, V, U]
	once   sync.Once // makes what follows, when the first keyer shares
	hash   func(K) uint64
	local  atomic.Int64 // keys in the keyers' own maps, about (counted)
	on     atomic.Bool  // a keyer sends here
	merged atomic.Bool  // one holds the entries; the shards are nil
	added  atomic.Int64 // keys added to the shards
	mu     sync.RWMutex // read-held to update a shard, held to merge them
	shards []mapShard[K, V]
	oneMu  sync.Mutex // guards one
	one    map[K]V
}

// mapShard is one of the shared maps, alone on its cache lines.
type mapShard[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
	_  [48]byte
}

// shareKeyed folds the items of s into one map (see above) with fold, and
// returns it. The keyers share their entries unless s runs in index order
// under a context (order says whether the result depends on the order of
// the items, as keyedFold's anyOrder): then every run fills a map of its
// own, joined in index order, so that the result is that of a prefix of
// the source.
func shareKeyed[T any, K comparable, V, U any](s pipe.Spec[T], anyOrder bool, how sharing[K, V, U], fold func(a *keyer[K, V, U], xs []T) *keyer[K, V, U]) map[K]V {
	var shared *sharedMap[K, V, U]
	if s.Unordered || anyOrder && s.Context == nil {
		shared = &sharedMap[K, V, U]{how: how}
	}
	maps := pipe.NewApart(emptyMap[K, V])
	a := keyedFold(s, anyOrder,
		func() *keyer[K, V, U] { return &keyer[K, V, U]{shared: shared, maps: maps} },
		fold,
		func(a, b *keyer[K, V, U]) *keyer[K, V, U] {
			if !a.sending && !b.sending {
				a.local = joinMaps(a.local, b.local, how.join)
				return a
			}
			a.share()
			b.share()
			return a
		})
	if shared == nil || !shared.on.Load() {
		if a.local == nil {
			return map[K]V{}
		}
		return a.local
	}
	a.share()
	return shared.result()
}

// foldShared is the fold of an operation that gives each item a key and a
// unit with split: into the keyer's own map while it has one, else to the
// shared maps.
func foldShared[T any, K comparable, V, U any](how sharing[K, V, U], split func(T) (K, U)) func(a *keyer[K, V, U], xs []T) *keyer[K, V, U] {
	return func(a *keyer[K, V, U], xs []T) *keyer[K, V, U] {
		if m := a.own(); m != nil {
			for _, x := range xs {
				k, u := split(x)
				how.put(m, k, u)
			}
			a.grew()
			return a
		}
		for _, x := range xs {
			k, u := split(x)
			a.send(k, u)
		}
		return a
	}
}

// start makes the shared maps, when the first keyer shares.
func (s *sharedMap[K, V, U]) start() {
	s.hash = comparableHasher[K]()
	if s.hash == nil {
		s.merged.Store(true) // no hash to shard by
		s.one = map[K]V{}
		return
	}
	s.shards = make([]mapShard[K, V], keyShards)
	maps := pipe.NewApart(emptyMap[K, V]) // two goroutines write two shards at once
	for i := range s.shards {
		s.shards[i].m = maps.Make()
	}
}

// own returns the keyer's own map, made on its first use, or nil once the
// keyer sends its items to the shared maps.
func (a *keyer[K, V, U]) own() map[K]V {
	if a.sending {
		return nil
	}
	if a.local == nil {
		a.local = a.maps.Make()
	}
	return a.local
}

// grew says that the keyer's own map has had items added. Every localStep
// keys it adds them to the count of keys in the keyers' own maps; past
// localKeys in all, or once another keyer shares, its entries move to the
// shared maps.
func (a *keyer[K, V, U]) grew() {
	n := len(a.local)
	if n < a.told+localStep || a.shared == nil {
		return
	}
	if s := a.shared; s.on.Load() || s.local.Add(int64(n-a.told)) > localKeys {
		a.share()
		return
	}
	a.told = n
}

// send adds an item to the keyer's batch for the shared maps, and sends the
// batch once it is full.
func (a *keyer[K, V, U]) send(k K, u U) {
	if a.batch != nil {
		a.batch = append(a.batch, sent[K, U]{u, k})
		if len(a.batch) >= oneBatch {
			a.flushOne(false)
		}
		return
	}
	i := a.shared.shard(k)
	b := append(a.shards[i], sent[K, U]{u, k})
	a.shards[i] = b
	if len(b) >= shardBatch {
		a.flushShard(i)
	}
}

// flushShard adds the batch of shard i to it, or, if the shards have been
// merged meanwhile, moves the keyer's batches to the one map's.
func (a *keyer[K, V, U]) flushShard(i int) {
	s := a.shared
	s.mu.RLock()
	if s.merged.Load() {
		s.mu.RUnlock()
		a.toOne()
		return
	}
	n := func() int {
		defer s.mu.RUnlock()
		return locked(&s.shards[i].mu, func() { putAll(s.how, s.shards[i].m, a.shards[i]) }, s.shards[i].m)
	}()
	clear(a.shards[i]) // lets go of what the units point to
	a.shards[i] = a.shards[i][:0]
	if s.added.Add(int64(n)) > bigKeys {
		s.merge()
	}
}

// toOne moves the keyer's batches by shard into its batch for the one map,
// once the shards have been merged.
func (a *keyer[K, V, U]) toOne() {
	batch := make([]sent[K, U], 0, oneBatch)
	for i, b := range a.shards {
		batch = append(batch, b...)
		a.shards[i] = nil
	}
	a.shards, a.batch = nil, batch
	a.flushOne(false)
}

// flushOne adds the keyer's batch to the one map if nobody holds it, or
// whatever that takes once the batch holds oneBatchMost items or force
// says so.
func (a *keyer[K, V, U]) flushOne(force bool) {
	s := a.shared
	if force || len(a.batch) >= oneBatchMost {
		s.oneMu.Lock()
	} else if !s.oneMu.TryLock() {
		return
	}
	func() {
		defer s.oneMu.Unlock()
		putAll(s.how, s.one, a.batch)
	}()
	clear(a.batch)
	a.batch = a.batch[:0]
}

// share moves what the keyer holds, its own map or its batches, into the
// shared maps; from then on the keyer sends its items there.
func (a *keyer[K, V, U]) share() {
	s := a.shared
	if !a.sending {
		a.sending = true
		s.once.Do(s.start)
		s.on.Store(true)
		if !s.merged.Load() {
			a.shards = make([][]sent[K, U], keyShards)
		} else {
			a.batch = make([]sent[K, U], 0, oneBatch)
		}
		s.add(a.local)
		a.local = nil
	}
	if a.batch == nil && s.merged.Load() {
		a.toOne()
	}
	if a.batch != nil {
		a.flushOne(true)
		return
	}
	for i, b := range a.shards {
		if len(b) > 0 {
			a.flushShard(i)
		}
	}
	if a.batch != nil {
		a.flushOne(true) // the shards were merged during the flushes
	}
}

// shard returns the shard of key k. It takes the hash's upper half: a
// shard's map, hashing its keys with a seed of its own, would otherwise
// find its keys alike in the low bits that it compares first, if the two
// hashes agree there.
func (s *sharedMap[K, V, U]) shard(k K) int { return int(s.hash(k) >> 32 % keyShards) }

// add adds the entries of m, a keyer's own map, to the shared maps.
func (s *sharedMap[K, V, U]) add(m map[K]V) {
	if len(m) == 0 {
		return
	}
	s.mu.RLock()
	if s.merged.Load() {
		s.mu.RUnlock()
		locked(&s.oneMu, func() { joinInto(s.one, m, s.how.join) }, s.one)
		return
	}
	var by [keyShards]map[K]V
	for k, v := range m {
		i := s.shard(k)
		if by[i] == nil {
			by[i] = map[K]V{}
		}
		by[i][k] = v
	}
	added := func() (added int) {
		defer s.mu.RUnlock()
		for i, part := range by {
			sh := &s.shards[i]
			added += locked(&sh.mu, func() { joinInto(sh.m, part, s.how.join) }, sh.m)
		}
		return added
	}()
	if s.added.Add(int64(added)) > bigKeys {
		s.merge()
	}
}

// merge merges the shards into one map, once.
func (s *sharedMap[K, V, U]) merge() {
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

// union returns the shards' entries in one map, and lets the shards go.
// s.mu is held, or every keyer has finished.
func (s *sharedMap[K, V, U]) union() map[K]V {
	n := 0
	for i := range s.shards {
		n += len(s.shards[i].m)
	}
	m := make(map[K]V, n)
	for i := range s.shards {
		for k, v := range s.shards[i].m {
			m[k] = v // the shards hold no key twice
		}
		s.shards[i].m = nil
	}
	return m
}

// result returns the entries, once every keyer has shared what it held.
func (s *sharedMap[K, V, U]) result() map[K]V {
	if s.merged.Load() {
		return s.one
	}
	return s.union()
}

// locked runs update, which adds to m, holding mu, and returns the keys it
// added. The lock goes on a panic or Goexit too: update may call the
// user's op (ReduceByKey's), and the operation's other goroutines, which go
// on until they see the failure, must not wait for the lock for ever.
func locked[K comparable, V any](mu *sync.Mutex, update func(), m map[K]V) int {
	mu.Lock()
	defer mu.Unlock()
	n := len(m)
	update()
	return len(m) - n
}

// putAll puts the items of batch into m.
func putAll[K comparable, V, U any](how sharing[K, V, U], m map[K]V, batch []sent[K, U]) {
	for _, e := range batch {
		how.put(m, e.k, e.u)
	}
}

// joinMaps joins the entries of b, from items that come after a's, with
// those of a, and returns the map that holds them: the larger of the two,
// so that a join costs the keys of the smaller one. join takes a key's
// earlier value first, so that the ordered keyed operations join their
// runs' maps with it too.
func joinMaps[K comparable, V any](a, b map[K]V, join func(a, b V) V) map[K]V {
	if len(b) > len(a) {
		for k, v := range a {
			if w, ok := b[k]; ok {
				v = join(v, w)
			}
			b[k] = v
		}
		return b
	}
	joinInto(a, b, join)
	return a
}

// joinInto joins the entries of src, the later, into dst.
func joinInto[K comparable, V any](dst, src map[K]V, join func(a, b V) V) {
	for k, v := range src {
		if w, ok := dst[k]; ok {
			v = join(w, v)
		}
		dst[k] = v
	}
}
