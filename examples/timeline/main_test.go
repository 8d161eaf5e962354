package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmoke draws small versions of both loops and checks the pictures and
// the summary: the sums are checked by draw itself.
func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	for _, w := range []workload{triangle(1 << 10), hotSpot(1 << 14)} {
		var out bytes.Buffer
		tl, err := draw(&out, w, dir)
		if err != nil {
			t.Fatal(err)
		}
		items := 0
		for _, l := range tl.Lanes {
			for _, b := range l.Blocks {
				items += b.Hi - b.Lo
			}
		}
		if items != w.n {
			t.Errorf("%s: the blocks hold %d items, want %d", w.name, items, w.n)
		}
		path := filepath.Join(dir, w.name+".svg")
		if !strings.Contains(out.String(), path) || !strings.Contains(out.String(), "caller") {
			t.Errorf("%s: the summary names neither the picture nor the caller's lane:\n%s", w.name, out.String())
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for d := xml.NewDecoder(bytes.NewReader(data)); ; {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s is not well-formed XML: %v", path, err)
			}
		}
	}
	if _, err := draw(io.Discard, triangle(16), filepath.Join(dir, "missing")); err == nil {
		t.Error("writing into a missing directory did not fail")
	}
}
