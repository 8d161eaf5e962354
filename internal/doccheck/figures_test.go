package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Measured figures live in docs/benchmarks.md. The README quotes a few of
// them, each in a line that links to the row it comes from
// (docs/benchmarks.md#fig-...); the guide and the package docs link instead
// of quoting. These tests hold both rules.

var (
	// A figure: a number, or a range of two, with the unit of a measurement:
	// a ratio (0.98x) or a time (11.7 ns, 10 us, 1.5 ms, 2.0 s).
	figure = regexp.MustCompile(`(?:^|[^\w.^])(\d[\d,]*(?:\.\d+)?(?:-\d[\d,]*(?:\.\d+)?)?)(x| ?ns| ?us| ?µs| ?ms| ?s)\b`)
	// Only a ratio or a time in nanoseconds needs a home: other times in the
	// docs are settings or definitions (20 µs inline, 100 ms between
	// progress calls, W9's 1 ms waits), not measurements.
	measured = regexp.MustCompile(`^(x| ?ns)$`)
	// A link to a row of docs/benchmarks.md's headline table.
	figLink   = regexp.MustCompile(`\]\(([^()\s]*benchmarks\.md)#(fig-[\w-]+)\)`)
	figAnchor = regexp.MustCompile(`<a id="(fig-[\w-]+)"></a>`)
)

// figures returns the figures of a line, as "number unit" with the unit's
// spacing dropped ("11.7 ns" and "11.7ns" are the same figure), outside its
// links and code spans.
func figures(line string) []string {
	line = figLink.ReplaceAllString(line, "]")
	line = codeSpan.ReplaceAllString(line, "")
	var out []string
	for _, m := range figure.FindAllStringSubmatch(line, -1) {
		out = append(out, m[1]+strings.TrimSpace(m[2]))
	}
	return out
}

// needsHome reports whether a figure (as figures returns it) is a
// measurement that must come from docs/benchmarks.md.
func needsHome(f string) bool {
	unit := strings.TrimLeft(f, "0123456789.,-")
	return measured.MatchString(unit)
}

// proseLines returns the lines of a Markdown file outside fenced code, with
// their numbers.
func proseLines(t *testing.T, path string) map[int]string {
	t.Helper()
	lines := map[int]string{}
	if err := eachProseLine(path, func(n int, line string) { lines[n] = line }); err != nil {
		t.Fatal(err)
	}
	return lines
}

// headlineRows reads docs/benchmarks.md's rows that carry a fig- anchor:
// the figures of each, by anchor.
func headlineRows(t *testing.T, root string) map[string][]string {
	t.Helper()
	rows := map[string][]string{}
	for _, line := range proseLines(t, filepath.Join(root, "docs", "benchmarks.md")) {
		for _, m := range figAnchor.FindAllStringSubmatch(line, -1) {
			if _, dup := rows[m[1]]; dup {
				t.Errorf("docs/benchmarks.md: the anchor %q is on two rows", m[1])
			}
			rows[m[1]] = figures(line)
		}
	}
	if len(rows) == 0 {
		t.Fatal(`docs/benchmarks.md has no row with a <a id="fig-..."></a> anchor`)
	}
	return rows
}

// checkQuotes checks the figures of one file's lines: a line that links to
// a headline row may quote only figures of that row (of any of them, if it
// links to several), and a line that quotes a measurement (a ratio, or
// nanoseconds) must link to one.
func checkQuotes(rel string, lines map[int]string, rows map[string][]string) (errs []string, quoted int) {
	nums := make([]int, 0, len(lines))
	for n := range lines {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	for _, n := range nums {
		line := lines[n]
		figs := figures(line)
		links := figLink.FindAllStringSubmatch(line, -1)
		if len(links) == 0 {
			for _, f := range figs {
				if needsHome(f) {
					errs = append(errs, fmt.Sprintf("%s:%d: quotes the figure %q with no link to the row of docs/benchmarks.md it comes from (link to docs/benchmarks.md#fig-..., or link to the section instead of quoting)", rel, n, f))
				}
			}
			continue
		}
		var allowed []string
		for _, l := range links {
			row, ok := rows[l[2]]
			if !ok {
				errs = append(errs, fmt.Sprintf("%s:%d: links to %s#%s, which is no headline row", rel, n, l[1], l[2]))
				continue
			}
			allowed = append(allowed, row...)
		}
		for _, f := range figs {
			quoted++
			if !slices.Contains(allowed, f) {
				errs = append(errs, fmt.Sprintf("%s:%d: quotes %q, but the docs/benchmarks.md row it links to says %v", rel, n, f, allowed))
			}
		}
	}
	return errs, quoted
}

// TestReadmeFiguresMatch checks that every figure the README quotes is in
// the docs/benchmarks.md row its line links to, and that no measured figure
// in the README goes without such a link.
func TestReadmeFiguresMatch(t *testing.T) {
	root := repoRoot(t)
	rows := headlineRows(t, root)
	errs, quoted := checkQuotes("README.md", proseLines(t, filepath.Join(root, "README.md")), rows)
	for _, e := range errs {
		t.Error(e)
	}
	if quoted == 0 {
		t.Error("the README quotes no figure from docs/benchmarks.md: the check checked nothing")
	}
	t.Logf("%d figures quoted in the README, checked against %d headline rows", quoted, len(rows))
}

// TestGuideQuotesNoFigures checks that the guide and the other user docs
// (all but docs/benchmarks*.md, which hold the figures) quote a measured
// figure only with a link to its headline row.
func TestGuideQuotesNoFigures(t *testing.T) {
	root := repoRoot(t)
	rows := headlineRows(t, root)
	for _, rel := range []string{"docs/guide.md", "docs/design.md", "docs/beyond-one-machine.md"} {
		errs, _ := checkQuotes(rel, proseLines(t, filepath.Join(root, rel)), rows)
		for _, e := range errs {
			t.Error(e)
		}
	}
}

// TestFigureCheckCatchesDrift runs the check on a README line whose figure
// differs from its row's, and on a figure with no link, so that a check
// that matches nothing fails here.
func TestFigureCheckCatchesDrift(t *testing.T) {
	rows := map[string][]string{"fig-w1": figures("| <a id=\"fig-w1\"></a>W1 | 0.88x the time, 11.7 ns per join, 2.8-3.1x, 1,000 items |")}
	if want := []string{"0.88x", "11.7ns", "2.8-3.1x"}; !slices.Equal(rows["fig-w1"], want) {
		t.Fatalf("figures of the row = %v, want %v", rows["fig-w1"], want)
	}
	lines := map[int]string{
		1: "| W1 | 0.88x the time | [W1](docs/benchmarks.md#fig-w1) |",  // matches
		2: "| W1 | 0.87x the time | [W1](docs/benchmarks.md#fig-w1) |",  // drifted
		3: "costs 11.7ns per join, see [W1](docs/benchmarks.md#fig-w1)", // spacing differs: the same figure
		4: "it took 1.5x the time",                                      // no home
		5: "blocks of 4 us, 20 µs inline, every 100 ms",                 // settings, not measurements
		6: "| W1 | 0.88x | [W1](docs/benchmarks.md#fig-nowhere) |",      // no such row
		7: "`0.5x` in code is not prose; x86 and 2^26x neither",
	}
	errs, quoted := checkQuotes("README.md", lines, rows)
	if quoted != 4 {
		t.Errorf("quoted = %d, want 4 (lines 1, 2, 3 and 6)", quoted)
	}
	var at []string
	for _, e := range errs {
		at = append(at, strings.SplitN(e, ":", 3)[1])
	}
	if want := []string{"2", "4", "6", "6"}; !slices.Equal(at, want) {
		t.Errorf("errors on lines %v, want %v:\n%s", at, want, strings.Join(errs, "\n"))
	}
}

// TestGodocQuotesNoFigures checks the doc comments of the user-facing
// packages (par, runtime) and of their exported names: they link to
// docs/benchmarks.md instead of quoting a measured figure. Comments inside
// functions, and on unexported names, may keep the figure that explains
// a choice in the code.
func TestGodocQuotesNoFigures(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	for _, pkg := range []string{"par", "runtime"} {
		dir := filepath.Join(root, pkg)
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go") && inBuild(dir, fi.Name())
		}, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			for name, f := range p.Files {
				rel, _ := filepath.Rel(root, name)
				var docs []*ast.CommentGroup
				docs = append(docs, f.Doc)
				for _, d := range f.Decls {
					switch d := d.(type) {
					case *ast.FuncDecl:
						if d.Name.IsExported() {
							docs = append(docs, d.Doc)
						}
					case *ast.GenDecl:
						for _, s := range d.Specs {
							switch s := s.(type) {
							case *ast.TypeSpec:
								if s.Name.IsExported() {
									docs = append(docs, d.Doc, s.Doc)
								}
							case *ast.ValueSpec:
								for _, n := range s.Names {
									if n.IsExported() {
										docs = append(docs, d.Doc, s.Doc)
										break
									}
								}
							}
						}
					}
				}
				for _, cg := range docs {
					if cg == nil {
						continue
					}
					checked++
					for _, c := range cg.List {
						for _, fig := range figures(c.Text) {
							if needsHome(fig) {
								t.Errorf("%s:%d: the doc comment quotes the figure %q: link to docs/benchmarks.md instead", rel, fset.Position(c.Pos()).Line, fig)
							}
						}
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("found no doc comments to check")
	}
}
