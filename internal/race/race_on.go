//go:build race

package race

// Enabled reports whether the race detector is compiled in.
const Enabled = true

// Scale divides the iteration counts of stress tests. The race detector
// slows execution down 2-20x (the Go documentation's figure, "Data Race
// Detector", Runtime Overhead), and code made of atomic operations, as
// gopar's is, sits at the high end; dividing by 10 keeps a stress test's
// time under the detector near its time without it.
const Scale = 10
