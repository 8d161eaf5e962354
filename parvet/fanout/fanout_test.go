package fanout_test

import (
	"bytes"
	"flag"
	"go/ast"
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

// programs are the testdata packages that are programs: fan-outs, one file
// per shape, whose output does not depend on timing, which
// TestFixedProgramsPrintTheSame runs before and after their fixes.
var programs = []string{"fanoutrun"}

// TestFanouts checks the reports of testdata/src/fanouts and of the
// programs, and their suggested fixes against the golden files (one txtar
// section per fix: Blocking mode and the pool).
func TestFanouts(t *testing.T) {
	for _, pkg := range append([]string{"fanouts"}, programs...) {
		if *update {
			writeGolden(t, testdata(), pkg)
		}
		results := analysistest.RunWithSuggestedFixes(t, testdata(), fanout.Analyzer, pkg)
		if pkg == "fanouts" {
			checkFirstFix(t, results)
		}
	}
}

// firstFix is the fix that comes first (the one -fix applies) for some of
// the fan-outs of testdata/src/fanouts, by the function they are in:
// Blocking where the fan-out has a limit or its work blocks, in its body or
// in a function of the package that it calls; the pool otherwise.
var firstFix = map[string]string{
	"wgDeferDone":   fanout.FixPool,
	"wgArgs":        fanout.FixPool, // work, of this package, does no I/O
	"wgCounted":     fanout.FixPool,
	"wgIO":          fanout.FixBlocking,
	"wgSleepHelper": fanout.FixBlocking,
	"wgReadMethod":  fanout.FixBlocking,
	"egCount":       fanout.FixPool, // no limit, and its callback never fails
	"egWithContext": fanout.FixBlocking,
	"semChan":       fanout.FixBlocking,
	"workersAfter":  fanout.FixBlocking,
}

// checkFirstFix checks the order of the fixes of the fan-outs in firstFix.
func checkFirstFix(t *testing.T, results []*analysistest.Result) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range results {
		for _, f := range r.Pass.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				want, ok := firstFix[fd.Name.Name]
				if !ok {
					continue
				}
				for _, diag := range r.Diagnostics {
					if diag.Pos < fd.Pos() || diag.Pos >= fd.End() {
						continue
					}
					seen[fd.Name.Name] = true
					if len(diag.SuggestedFixes) == 0 {
						t.Errorf("%s: no fixes", fd.Name.Name)
					} else if got := diag.SuggestedFixes[0].Message; got != want {
						t.Errorf("%s: the first fix is %q, want %q", fd.Name.Name, got, want)
					}
				}
			}
		}
	}
	for name := range firstFix {
		if !seen[name] {
			t.Errorf("%s: no report", name)
		}
	}
}

// writeGolden writes, for each file of pkg with fixes, the file with every
// fix of each message applied, one txtar section per message.
func writeGolden(t *testing.T, dir, pkg string) {
	results := analysistest.Run(t, dir, fanout.Analyzer, pkg)
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

// TestOldModule checks a fan-out in a module whose go line, 1.18, has no
// max builtin: adding gopar raises that line, so both forms are offered, and
// Blocking comes first for file reads.
func TestOldModule(t *testing.T) {
	dir := filepath.Join(testdata(), "oldmodule")
	if *update {
		writeGolden(t, dir, "oldmodule/fanold")
	}
	results := analysistest.RunWithSuggestedFixes(t, dir, fanout.Analyzer, "oldmodule/fanold")
	n := 0
	for _, r := range results {
		for _, d := range r.Diagnostics {
			n++
			var msgs []string
			for _, f := range d.SuggestedFixes {
				msgs = append(msgs, f.Message)
			}
			if !slices.Equal(msgs, []string{fanout.FixBlocking, fanout.FixPool}) {
				t.Errorf("%s: fixes %q, want Blocking, then the pool (%s)", r.Pass.Fset.Position(d.Pos), msgs, d.Message)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d reports, want 1", n)
	}
}

// TestGoldenCompiles checks that every fixed file of fanouts compiles (the
// programs' fixed files build in TestFixedProgramsPrintTheSame).
func TestGoldenCompiles(t *testing.T) {
	goldentest.Compile(t, testdata(), "fanouts")
}

// TestFixedProgramsPrintTheSame runs each program of testdata before its
// fixes and with each golden fix in place, against gopar's own code (the
// module two folders up), and checks that the fix does not change what it
// prints.
func TestFixedProgramsPrintTheSame(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	goldentest.SameOutput(t, testdata(), "..", root, programs...)
}
