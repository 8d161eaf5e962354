package par

// DistinctOn is Distinct with shards shards (a power of two from 1 to 256),
// or, with 0, with a set per run merged in index order (its form before Go
// 1.24): so that tests reach every form on small inputs.
func DistinctOn[T comparable](it Iterator[T], shards int) []T {
	s := specOf(it)
	if hash := comparableHasher[T](); hash != nil && shards > 0 {
		return distinctSharded(s, hash, shards)
	}
	return distinctMerged(s)
}

// MemoryBudget is the memory budget of CountBySorted over it: WithMemory's,
// or half of the runtime's memory limit, or 0 for none.
func MemoryBudget[T any](it Iterator[T]) int64 { return memoryBudget(specOf(it).Config) }
