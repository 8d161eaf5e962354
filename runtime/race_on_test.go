//go:build race

package runtime

// raceScale shrinks stress tests under the race detector, which slows
// atomics-heavy code by 10-50x, so that CI stays fast.
const raceScale = 8
