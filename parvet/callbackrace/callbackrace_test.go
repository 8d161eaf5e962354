package callbackrace_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gopar-dev/gopar/parvet/callbackrace"
	"github.com/gopar-dev/gopar/parvet/internal/goldentest"
)

// testdata returns the testdata folder that both analyzers share, with its
// stubs of gopar's packages.
func testdata() string {
	dir, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		panic(err)
	}
	return dir
}

// TestRacy checks that every racy callback of testdata/src/racy is reported
// with its message.
func TestRacy(t *testing.T) {
	analysistest.Run(t, testdata(), callbackrace.Analyzer, "racy")
}

// TestSafe checks that no safe callback of testdata/src/safe is reported.
func TestSafe(t *testing.T) {
	analysistest.Run(t, testdata(), callbackrace.Analyzer, "safe")
}

// TestFixes checks the suggested fixes of testdata/src/racefix against its
// golden file.
func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, testdata(), callbackrace.Analyzer, "racefix")
}

// TestGoldenCompiles checks that the fixed file compiles.
func TestGoldenCompiles(t *testing.T) {
	goldentest.Compile(t, testdata(), "racefix")
}
