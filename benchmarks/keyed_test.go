package benchmarks

// The keyed workloads' inputs are small in the tests (2 MB of text, 100,000
// records, 200,000 ints), so that TestChecksums stays fast; cmd/compare
// builds the full ones.
func init() { k1Size, k2N, k3N = 2_000_000, 100_000, 200_000 }
