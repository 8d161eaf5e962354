//go:build gopar_small

package par

// Tiny thresholds, so that the tests' keyed operations (par's tests under the
// gopar_small tag) go through the shared map, its batches and its lock, and
// ReduceByKey's runs through their map of values.
const (
	localKeys    = 4
	localStep    = 1
	oneBatch     = 2
	oneBatchMost = 8
	keyShards    = 4
	shardBatch   = 2
	bigKeys      = 64
)

const reducedKeys = 4

const spillMin = 4 << 10
