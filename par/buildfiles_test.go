package par_test

import "go/build"

// inBuild reports whether the file at path, in the folder the test runs in,
// is part of the package for the toolchain that runs the test. The tests
// that read par's source skip the others: a file for a newer Go (chain.go,
// //go:build go1.27) holds syntax that an older go/parser rejects, and API
// that this build does not have.
func inBuild(path string) bool {
	ok, err := build.Default.MatchFile(".", path)
	return err == nil && ok
}
