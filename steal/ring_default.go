//go:build !gopar_small

package steal

// initialRingSize is the number of slots a Deque allocates on its first Push.
// A fork-join worker's deque holds about one item per level of nested Join,
// i.e. O(log n) items, so 64 slots (512 bytes) almost never grow, yet cost
// nothing worth mentioning per worker. Must be a power of two.
const initialRingSize = 64
