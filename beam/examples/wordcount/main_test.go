package main

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/gopar-dev/gopar/beam"
)

func TestMain(m *testing.M) { ptest.Main(m) }

// TestSameTopWords runs the command's pipeline as `wordcount` and
// `wordcount -runner=prism` do, and compares what they print.
func TestSameTopWords(t *testing.T) {
	var gopar, prism strings.Builder
	if err := run(context.Background(), beam.Gopar, &gopar); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), beam.Beam, &prism); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(gopar.String(), "\n"); got != *top {
		t.Fatalf("gopar printed %d lines, want %d:\n%s", got, *top, gopar.String())
	}
	if !strings.HasPrefix(gopar.String(), "the\t") {
		t.Errorf("the most frequent word is not the first of the vocabulary:\n%s", gopar.String())
	}
	if gopar.String() != prism.String() {
		t.Errorf("gopar printed\n%s\nPrism printed\n%s", gopar.String(), prism.String())
	}
}
