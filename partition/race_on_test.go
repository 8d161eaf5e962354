//go:build race

package partition

// scale divides stress-test iteration counts: the race detector makes
// every atomic operation about ten times slower.
const scale = 20
