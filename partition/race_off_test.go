//go:build !race

package partition

// scale divides stress-test iteration counts (see race_on_test.go).
const scale = 1
