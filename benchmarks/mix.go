package benchmarks

// mix is the splitmix64 finalizer: a cheap, well-spread function of x (wrapping
// uint64 arithmetic). It is the unit of work of most workloads.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// mixInt is mix on an index, the per-item function of W0, W1, W7 and W8.
func mixInt(i int) uint64 { return mix(uint64(i)) }

// add64 is the combining operation of every checksum.
func add64(a, b uint64) uint64 { return a + b }
