package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Measured figures live in docs/benchmarks.md, the results page: the table
// that cmd/compare writes from its latest run, and the hand-written table of
// the figures other commands measure. A row of either carries an anchor
// (<a id="fig-w1"></a>) and its figures sit in the column headed "figure".
// The README quotes a few of them, each in a line that links to the row it
// comes from (docs/benchmarks.md#fig-...); the guide and the package docs
// link instead of quoting. These tests hold both rules.

var (
	// A figure: a number, or a range of two, with the unit of a measurement:
	// a ratio (0.98x) or a time (11.7 ns, 10 us, 1.5 ms, 2.0 s).
	figure = regexp.MustCompile(`(?:^|[^\w.^])(\d[\d,]*(?:\.\d+)?(?:-\d[\d,]*(?:\.\d+)?)?)(x| ?ns| ?us| ?µs| ?ms| ?s)\b`)
	// Only a ratio or a time in nanoseconds needs a home: other times in the
	// docs are settings or definitions (20 µs inline, 100 ms between
	// progress calls, W9's 1 ms waits), not measurements.
	measured = regexp.MustCompile(`^(x| ?ns)$`)
	// A link to a row of docs/benchmarks.md's tables.
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

// headlineRows reads the rows of docs/benchmarks.md that carry a fig-
// anchor: the figures of each, by anchor (see tableFigures).
func headlineRows(t *testing.T, root string) map[string][]string {
	t.Helper()
	var lines []string
	if err := eachProseLine(filepath.Join(root, "docs", "benchmarks.md"), func(_ int, line string) { lines = append(lines, line) }); err != nil {
		t.Fatal(err)
	}
	rows, errs := tableFigures(lines)
	for _, e := range errs {
		t.Error("docs/benchmarks.md: " + e)
	}
	if len(rows) == 0 {
		t.Fatal(`docs/benchmarks.md has no row with a <a id="fig-..."></a> anchor`)
	}
	return rows
}

// tableFigures reads the Markdown tables among lines. A row with fig-
// anchors starts a figure; the figures of the column headed "figure" in
// that row, and in the rows after it that carry no anchor (the other
// targets of the same form, in the generated table) up to the table's end,
// are that figure's. The other columns (bars, trust checks, commands) hold
// numbers that are not measurements of the row's own.
func tableFigures(lines []string) (map[string][]string, []string) {
	rows := map[string][]string{}
	var errs []string
	var header []string
	col := -1
	var current []string // the anchors the rows now read belong to
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "|") {
			header, current = nil, nil
			continue
		}
		cells := tableCells(trimmed)
		if header == nil {
			header, col = cells, slices.Index(cells, "figure")
			continue
		}
		if tableRule.MatchString(trimmed) {
			continue
		}
		var anchors []string
		for _, m := range figAnchor.FindAllStringSubmatch(line, -1) {
			anchors = append(anchors, m[1])
			if _, dup := rows[m[1]]; dup {
				errs = append(errs, fmt.Sprintf("line %d: the anchor %q is on two rows", i+1, m[1]))
			}
			rows[m[1]] = []string{}
		}
		if len(anchors) > 0 {
			current = anchors
		}
		if len(current) == 0 {
			continue
		}
		if col < 0 || col >= len(cells) {
			errs = append(errs, fmt.Sprintf("line %d: a row with a fig- anchor in a table with no column headed \"figure\"", i+1))
			continue
		}
		for _, a := range current {
			rows[a] = append(rows[a], figures(cells[col])...)
		}
	}
	return rows, errs
}

// tableRule matches a table's header rule: |---|:--:|.
var tableRule = regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+$`)

// tableCells splits a table row into its trimmed cells; an escaped \| is
// part of a cell.
func tableCells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cell.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
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
	rows, errs := tableFigures([]string{
		"| workload | figure | bar |",
		"|---|---|---|",
		"| <a id=\"fig-w1\"></a>W1 | 0.88x the time, 11.7 ns per join, 2.8-3.1x, 1,000 items | ≤ 1.05x |",
	})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
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
		8: "within the bar of 1.05x, see [W1](docs/benchmarks.md#fig-w1)", // a bar, not the row's figure
	}
	errs, quoted := checkQuotes("README.md", lines, rows)
	if quoted != 5 {
		t.Errorf("quoted = %d, want 5 (lines 1, 2, 3, 6 and 8)", quoted)
	}
	var at []string
	for _, e := range errs {
		at = append(at, strings.SplitN(e, ":", 3)[1])
	}
	if want := []string{"2", "4", "6", "6", "8"}; !slices.Equal(at, want) {
		t.Errorf("errors on lines %v, want %v:\n%s", at, want, strings.Join(errs, "\n"))
	}
}

// TestTableFiguresReadsTheFigureColumn reads tables of the two kinds the
// results page has: a row's figures are those of its "figure" column, and
// of the rows after it without an anchor, up to the table's end; a second
// row with the same anchor, and an anchored row of a table that has no
// "figure" column, are errors.
func TestTableFiguresReadsTheFigureColumn(t *testing.T) {
	rows, errs := tableFigures([]string{
		"Generated:",
		"",
		"| workload | gopar | figure | against | bar | trust |",
		"|---|---|---|---|---:|---|",
		"| <a id=\"fig-w1\"></a><a id=\"fig-w1-item\"></a>W1 | gopar-item | 0.99x the time | static-fn | ≤ 1.03x | ok (static 1.95x) |",
		"| <a id=\"fig-w1-block\"></a> | gopar-block | 0.97x the time | static | ≤ 1.05x | |",
		"| | | 1.93x faster | seq | ≥ 1.90x | |",
		"| <a id=\"fig-w2\"></a>W2 | gopar-item | 1.01x the time | `a \\| b` 7.5x | ≤ 1.03x | ok (static 1.9x) |",
		"",
		"| | | 4.4x | a row of no table's anchor |",
		"",
		"| id | figure | reproduce |",
		"|---|---|---|",
		"| <a id=\"fig-join\"></a>join | `par.JoinFunc` 1.2-1.6 ns | `go test -bench 'Join$' -count 6` |",
		"| <a id=\"fig-w2\"></a>again | 3.3x | |",
		"",
		"| id | what |",
		"|---|---|",
		"| <a id=\"fig-lost\"></a>lost | 2.2x |",
	})
	want := map[string][]string{
		"fig-w1":       {"0.99x"},
		"fig-w1-item":  {"0.99x"},
		"fig-w1-block": {"0.97x", "1.93x"},
		"fig-w2":       {"3.3x"},
		"fig-join":     {"1.2-1.6ns"},
		"fig-lost":     {},
	}
	if len(rows) != len(want) {
		t.Errorf("anchors %v, want %v", rows, want)
	}
	for a, figs := range want {
		if !slices.Equal(rows[a], figs) {
			t.Errorf("%s: figures %v, want %v", a, rows[a], figs)
		}
	}
	if len(errs) != 2 || !strings.Contains(errs[0], `"fig-w2" is on two rows`) || !strings.Contains(errs[1], `no column headed "figure"`) {
		t.Errorf("errors:\n%s\nwant the second fig-w2 and the table without a figure column", strings.Join(errs, "\n"))
	}
}

// resultsMarker ends the hand-written head of a page that cmd/compare
// writes (benchmarks/cmd/compare/report.go, headMarker): the command keeps
// what is above it and writes the rest.
const resultsMarker = "<!-- written by hand above this line; cmd/compare writes everything below it -->"

// generatedHeadings are the sections that cmd/compare writes below the
// marker for one run.
var generatedHeadings = regexp.MustCompile(`^## (Run|Results|Charts)$`)

// A pageRule is what checkResultsPage holds a page to.
type pageRule struct {
	maxHead  int  // lines of the hand-written head
	maxLines int  // lines in all; 0: no limit
	headings bool // below the marker, only the sections cmd/compare writes for one run
}

// checkResultsPage checks a results page: a short hand-written head, the
// marker once, then what cmd/compare writes, starting with the command that
// wrote it.
func checkResultsPage(text string, rule pageRule) []string {
	maxHead, maxLines := rule.maxHead, rule.maxLines
	var errs []string
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if maxLines > 0 && len(lines) > maxLines {
		errs = append(errs, fmt.Sprintf("%d lines, more than %d: keep the hand-written head short and the sections cmd/compare writes", len(lines), maxLines))
	}
	at := slices.Index(lines, resultsMarker)
	if at < 0 || strings.Count(text, resultsMarker) != 1 {
		return append(errs, "the line "+resultsMarker+" is not on the page once: cmd/compare cannot tell the hand-written head from what it writes")
	}
	if at > maxHead {
		errs = append(errs, fmt.Sprintf("the hand-written head is %d lines, more than %d", at, maxHead))
	}
	generated := strings.Join(lines[at+1:], "\n")
	if !strings.Contains(generated, "Generated by `go run ./cmd/compare") {
		errs = append(errs, "below the marker, the page does not name the command that wrote it (Generated by `go run ./cmd/compare ...`)")
	}
	fence := false
	for i, line := range lines[at+1:] {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if rule.headings && !fence && strings.HasPrefix(line, "#") && !generatedHeadings.MatchString(line) {
			errs = append(errs, fmt.Sprintf("line %d: %q is no section cmd/compare writes: hand-written text goes above the marker, and a design's reasons next to the design", at+i+2, line))
		}
	}
	return errs
}

// TestResultsPagesAreGenerated checks docs/benchmarks.md (at most about 250
// lines, and below its head only the sections cmd/compare writes) and the
// sweep's page (a head, then what cmd/compare wrote).
func TestResultsPagesAreGenerated(t *testing.T) {
	root := repoRoot(t)
	for _, c := range []struct {
		rel  string
		rule pageRule
	}{{"docs/benchmarks.md", pageRule{40, 250, true}}, {"docs/benchmarks-16core.md", pageRule{40, 0, false}}} {
		text, err := os.ReadFile(filepath.Join(root, c.rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range checkResultsPage(string(text), c.rule) {
			t.Errorf("%s: %s", c.rel, e)
		}
	}
}

// TestResultsPageCheckCatchesHandWriting runs the page check on a page that
// is too long, has a hand-written section below the marker and no command,
// and on one without the marker, so that a check that passes anything fails
// here.
func TestResultsPageCheckCatchesHandWriting(t *testing.T) {
	good := "# gopar benchmarks\n\nHow to read it.\n\n" + resultsMarker + "\n\n## Run\n\nGenerated by `go run ./cmd/compare -w all -out x.md` in `benchmarks/`.\n\n## Results\n\n| a |\n\n## Charts\n\n```\n# not a heading\n```\n"
	if errs := checkResultsPage(good, pageRule{40, 250, true}); len(errs) > 0 {
		t.Errorf("a generated page: %v", errs)
	}
	bad := strings.Replace(good, "Generated by", "Made by", 1) + "\n## W0 and the per-item call\n\nThe fifth run...\n" + strings.Repeat("\n", 250)
	errs := checkResultsPage(bad, pageRule{3, 250, true})
	for _, want := range []string{"lines, more than 250", "head is 4 lines", "does not name the command", `"## W0 and the per-item call" is no section`} {
		if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, want) }) {
			t.Errorf("no error saying %q among:\n%s", want, strings.Join(errs, "\n"))
		}
	}
	if errs := checkResultsPage(bad, pageRule{40, 0, false}); len(errs) != 1 || !strings.Contains(errs[0], "does not name the command") {
		t.Errorf("a sweep's page, no limits on lines or sections: %v", errs)
	}
	if errs := checkResultsPage(strings.Replace(good, resultsMarker, "", 1), pageRule{40, 250, true}); len(errs) != 1 || !strings.Contains(errs[0], "not on the page once") {
		t.Errorf("a page without the marker: %v", errs)
	}
}

// TestGodocQuotesNoFigures checks the doc comments of the user-facing
// packages (par and runtime) and of their exported names: they link to
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
