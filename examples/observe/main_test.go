package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSmoke serves a few requests beside the background job, each past a
// budget of a nanosecond, and checks that the files were written: the
// profile, the trace, and the flight recorder's snapshot (from Go 1.25).
func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	n, err := run(dir, 2, 2000, 200*time.Millisecond, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no request was served")
	}
	for _, f := range files {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Error(err)
		} else if fi.Size() == 0 {
			t.Errorf("%s is empty", f)
		}
	}
}
