package fanout_test

import (
	"bytes"
	"flag"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/imports"
	"golang.org/x/tools/txtar"

	"github.com/gopar-dev/gopar/parvet/fanout"
	"github.com/gopar-dev/gopar/parvet/internal/goldentest"
)

var update = flag.Bool("update", false, "rewrite the golden files from the analyzer's fixes")

// testdata returns the testdata folder that both analyzers share, with its
// stubs of gopar's, errgroup's and semaphore's packages.
func testdata() string {
	dir, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		panic(err)
	}
	return dir
}

// TestFanouts checks the reports of testdata/src/fanouts and their
// suggested fixes against the golden files (one txtar section per fix:
// Blocking mode and the pool).
func TestFanouts(t *testing.T) {
	for _, pkg := range []string{"fanouts"} {
		if *update {
			writeGolden(t, pkg)
		}
		analysistest.RunWithSuggestedFixes(t, testdata(), fanout.Analyzer, pkg)
	}
}

// writeGolden writes, for each file of pkg with fixes, the file with every
// fix of each message applied, one txtar section per message.
func writeGolden(t *testing.T, pkg string) {
	results := analysistest.Run(t, testdata(), fanout.Analyzer, pkg)
	type edit struct {
		start, end int
		text       []byte
	}
	byFile := map[string]map[string][]edit{}
	for _, r := range results {
		fset := r.Pass.Fset
		for _, d := range r.Diagnostics {
			for _, fix := range d.SuggestedFixes {
				addEdits(fset, fix, func(file string, start, end int, text []byte) {
					if byFile[file] == nil {
						byFile[file] = map[string][]edit{}
					}
					es := byFile[file][fix.Message]
					for _, e := range es {
						if e.start == start && e.end == end && bytes.Equal(e.text, text) {
							return // an import added twice
						}
					}
					byFile[file][fix.Message] = append(es, edit{start, end, text})
				})
			}
		}
	}
	for file, byMsg := range byFile {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var ar txtar.Archive
		for _, msg := range []string{fanout.FixBlocking, fanout.FixPool} {
			es := byMsg[msg]
			if len(es) == 0 {
				continue
			}
			sort.Slice(es, func(i, j int) bool { return es[i].start > es[j].start })
			out := slices.Clone(src)
			for _, e := range es {
				out = slices.Concat(out[:e.start], e.text, out[e.end:])
			}
			formatted, err := imports.Process(file, out, &imports.Options{Comments: true, TabIndent: true, TabWidth: 8})
			if err != nil {
				t.Fatalf("%s: %v\n%s", file, err, out)
			}
			ar.Files = append(ar.Files, txtar.File{Name: msg, Data: formatted})
		}
		if err := os.WriteFile(file+".golden", txtar.Format(&ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func addEdits(fset *token.FileSet, fix analysis.SuggestedFix, add func(file string, start, end int, text []byte)) {
	for _, e := range fix.TextEdits {
		f := fset.File(e.Pos)
		add(f.Name(), f.Offset(e.Pos), f.Offset(e.End), e.NewText)
	}
}

// TestGoldenCompiles checks that every fixed file compiles.
func TestGoldenCompiles(t *testing.T) {
	goldentest.Compile(t, testdata(), "fanouts")
}
