package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// small is a frame quick enough for a test, with rows of very different
// cost still.
var small = frame{width: 96, height: 64, maxIter: 300}

// TestSmoke checks that the static fan-out and gopar count the same
// iterations as the plain loop, and that the parallel picture is the
// plain one, pixel for pixel.
func TestSmoke(t *testing.T) {
	want := small.plain()
	if want == 0 {
		t.Fatal("the plain loop counted no iterations")
	}
	if got := small.static(); got != want {
		t.Errorf("static fan-out: %d iterations, plain loop: %d", got, want)
	}
	if got := small.gopar(); got != want {
		t.Errorf("gopar: %d iterations, plain loop: %d", got, want)
	}
	if !bytes.Equal(small.image().Pix, small.plainImage().Pix) {
		t.Error("the parallel picture differs from the plain one")
	}
}

func TestWritePNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.png")
	img := small.image()
	if err := writePNG(path, img); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the file is not a PNG: %v", err)
	}
	if decoded.Bounds() != img.Bounds() {
		t.Fatalf("PNG is %v, want %v", decoded.Bounds(), img.Bounds())
	}
	// The centre of the set is black, the corner (-2, -1.5) is not.
	if r, g, b, _ := decoded.At(small.width/2, small.height/2).RGBA(); r|g|b != 0 {
		t.Errorf("centre pixel is not black")
	}
	if r, g, b, _ := decoded.At(0, 0).RGBA(); r|g|b == 0 {
		t.Errorf("corner pixel is black")
	}
	if err := writePNG(filepath.Join(t.TempDir(), "missing", "m.png"), img); err == nil {
		t.Error("writing into a missing directory did not fail")
	}
}
