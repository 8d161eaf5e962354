package lockheld_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gopar-dev/gopar/parvet/lockheld"
)

// TestLockHeld checks the reports of testdata/src/lockheld: each mutex held
// across a gopar call whose callback locks it, and none for the others.
func TestLockHeld(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, lockheld.Analyzer, "lockheld")
}
