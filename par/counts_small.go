//go:build gopar_small

package par

// Tiny thresholds, so that the tests' counts (par's tests under the
// gopar_small tag) go through the shared map, its batches and its lock.
const (
	localKeys      = 4
	localStep      = 1
	countBatch     = 2
	countBatchMost = 8
	countShards    = 4
	shardBatch     = 2
	bigKeys        = 64
)

const spillMin = 64
