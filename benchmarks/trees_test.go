package benchmarks

func init() { treeN = 100_000 }
