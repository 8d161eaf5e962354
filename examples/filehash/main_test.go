package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestBothVersionsAgree hashes a small tree both ways.
func TestBothVersionsAgree(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		sub := filepath.Join(dir, strconv.Itoa(i%4))
		os.MkdirAll(sub, 0o755)
		if err := os.WriteFile(filepath.Join(sub, strconv.Itoa(i)), []byte("file "+strconv.Itoa(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths, err := files(dir)
	if err != nil || len(paths) != 40 {
		t.Fatalf("files: %d, %v", len(paths), err)
	}
	a, err := handRolled(paths, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := withGopar(paths, 3)
	if err != nil {
		t.Fatal(err)
	}
	if digest(a) != digest(b) {
		t.Fatal("the two versions disagree")
	}
	// A file that cannot be read is an error in both.
	paths = append(paths, filepath.Join(dir, "missing"))
	if _, err := handRolled(paths, 3); err == nil {
		t.Error("hand-rolled: no error for a missing file")
	}
	if _, err := withGopar(paths, 3); err == nil {
		t.Error("gopar: no error for a missing file")
	}
	if n := lines("withGopar"); n != 3 {
		t.Errorf("withGopar is %d lines", n)
	}
}
