// Package long tells tests whether to run their long versions: the stress,
// fuzz and differential runs that CI makes with GOPAR_TEST_LONG=1. Without
// it, `go test ./...` runs every test in a shorter form (fewer rounds,
// smaller inputs, a shorter time budget) that still checks each property,
// so that the README's command ends in about a minute on two cores.
//
// It is the one place of that knob for every package of the module, as
// internal/race is for the race detector's.
package long

import "os"

// EnvVar is the environment variable that turns the long versions on.
const EnvVar = "GOPAR_TEST_LONG"

// Enabled reports whether the long versions run: GOPAR_TEST_LONG=1 is set.
// It reads only the environment, so package-level variables of tests may
// call it (testing.Short may not be called before the flags are parsed).
func Enabled() bool {
	return os.Getenv(EnvVar) == "1"
}

// Pick returns full when the long versions run, and short otherwise.
func Pick[T any](full, short T) T {
	if Enabled() {
		return full
	}
	return short
}
