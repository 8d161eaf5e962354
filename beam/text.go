package beam

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	abeam "github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"

	// Local files for textio; remote file systems (gs://, s3://) register
	// themselves when imported (x/beamx imports gcs).
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
)

// ReadText returns the lines of the files that glob matches, without their
// "\n" (a "\r" before it stays, as textio.Read keeps it). On gopar glob is a local filepath.Glob
// pattern, read when the pipeline runs; on Beam it is textio.Read's, which
// also takes gs:// and other file systems' paths and splits large files
// among the workers. A glob that matches no file gives an empty collection
// on both, as textio.Read does (it allows empty matches).
func ReadText(p *Pipeline, glob string) Collection[string] {
	return Collection[string]{p.add(&node{
		name: "ReadText",
		local: func(ctx context.Context, _ []any) any {
			lines, err := readLines(glob)
			if err != nil {
				panic(readError{err})
			}
			return lines
		},
		beam: func(s abeam.Scope, _ []abeam.PCollection) abeam.PCollection {
			return textio.Read(s.Scope("ReadText"), glob)
		},
	})}
}

// readError carries ReadText's error on gopar from the node to Run.
type readError struct{ err error }

func readLines(glob string) ([]string, error) {
	files, err := filepath.Glob(glob)
	if err != nil {
		return nil, fmt.Errorf("beam: ReadText %q: %w", glob, err)
	}
	var lines []string
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("beam: ReadText: %w", err)
		}
		ls := strings.Split(string(b), "\n")
		if ls[len(ls)-1] == "" {
			ls = ls[:len(ls)-1] // the last line's "\n" ends it, and starts none
		}
		lines = append(lines, ls...)
	}
	return lines, nil
}

// WriteText writes c's elements to the file path, one per line, in no
// particular order, when the pipeline runs: a local file on gopar; on Beam,
// textio.Write's path, which may be on any file system the runner's workers
// reach (gs:// on Dataflow). Unlike Collect, it works on every runner.
func WriteText(c Collection[string], path string) {
	n := c.node("WriteText")
	n.pipeline.addOutput(textOutput{n, path})
}

type textOutput struct {
	n    *node
	path string
}

func (o textOutput) node() *node      { return o.n }
func (o textOutput) inProcess() bool  { return false }
func (o textOutput) setBeam(vs []any) {}
func (o textOutput) beamSink(s abeam.Scope, col abeam.PCollection, _ string) {
	textio.Write(s.Scope("WriteText"), o.path, col)
}
func (o textOutput) setLocal(v any) error {
	var b strings.Builder
	for _, line := range v.([]string) {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(o.path, []byte(b.String()), 0o666); err != nil {
		return fmt.Errorf("beam: WriteText: %w", err)
	}
	return nil
}
