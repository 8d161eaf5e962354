//go:build !race

package race

// Enabled reports whether the race detector is compiled in.
const Enabled = false

// Scale divides the iteration counts of stress tests: 1 without the race
// detector (see race_on.go).
const Scale = 1
