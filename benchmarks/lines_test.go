package benchmarks

// S4's text is 4 MiB in the tests, a few dozen of par.Lines's pieces, so
// that TestChecksums stays fast; cmd/compare builds the full 200 MB.
func init() { linesSize = 4 << 20 }
