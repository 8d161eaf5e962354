//go:build race

package par_test

// raceEnabled: the race detector instruments allocations and slows every
// item tenfold, so allocation counts and large inputs are skipped under it.
const raceEnabled = true
