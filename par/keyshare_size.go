//go:build !gopar_small

package par

const (
	// localKeys: once the goroutines' own maps hold more keys
	// than this in all, they move into the shared maps (keyshare.go); a
	// goroutine adds its map's keys to that count every localStep keys.
	// 256K keys of a few words each are some 10 MB, kept by the
	// operation whatever the number of goroutines.
	localKeys = 1 << 18
	localStep = 1 << 12
	// oneBatch: a goroutine that adds to the shared map sends its
	// items in batches of this many, or more while another goroutine holds
	// the map, up to oneBatchMost, where it waits for the map. A batch
	// of 4,096 updates of a map of 10M keys takes about 0.5 ms.
	oneBatch     = 1 << 12
	oneBatchMost = 1 << 14
)

const (
	// keyShards: the shared maps are split into this many maps, each
	// with a lock of its own, while they hold fewer than bigKeys keys; a
	// goroutine sends each shard batches of shardBatch items.
	keyShards  = 64
	shardBatch = 256
	// bigKeys: shared maps with more keys than this are merged into one
	// map (keyshare.go). The merge holds them twice for a while: at 2M keys,
	// the count of 9.8M keys of cmd/keys peaks at 0.9-1.1x the loop's
	// memory.
	bigKeys = 1 << 21
)

// reducedKeys: a run of ReduceByKey in index order keeps its values in a
// slice beside a map of indexes while it holds at most this many keys, and
// in a map of values past it (reduced.go).
const reducedKeys = 1 << 16

// spillMin: a goroutine of an operation that spills (CountBySorted,
// GroupBySorted, ...) writes its map to disk once the map passes its share
// of the memory budget and not before it holds this many bytes, so that a
// tiny budget makes runs of some size, not a file per block of items. In
// bytes, not keys: a map of a thousand large groups is not small.
const spillMin = 64 << 10
