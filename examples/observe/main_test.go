package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSmoke serves a few requests beside the background job and checks
// that both files were written.
func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	n, err := run(dir, 2, 2000, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no request was served")
	}
	for _, f := range []string{"cpu.pprof", "trace.out"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Error(err)
		} else if fi.Size() == 0 {
			t.Errorf("%s is empty", f)
		}
	}
}
