package doccheck

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The project's text speaks of the project as it is: what the code does and
// why, with the figures of docs/benchmarks.md. These tests keep two kinds of
// drift out of it: the vocabulary of a measuring diary, and citations of a
// document's section that no longer exists.

// projectFiles lists the files of the project: those git tracks, and the new
// ones it would track (outside .gitignore), that are still in the work tree;
// without git, every file under root. Test data is left out: it holds inputs,
// not text.
func projectFiles(t *testing.T, root string) []string {
	t.Helper()
	var rels []string
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err == nil {
		for _, rel := range strings.Split(string(out), "\x00") {
			if rel != "" {
				rels = append(rels, filepath.FromSlash(rel))
			}
		}
	} else {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			rels = append(rels, rel)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	for _, rel := range rels {
		if slices.Contains(strings.Split(rel, string(filepath.Separator)), "testdata") {
			continue
		}
		if fi, err := os.Stat(filepath.Join(root, rel)); err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, not yet in the index
		}
		files = append(files, rel)
	}
	slices.Sort(files)
	return files
}

// diaryWord matches the word a lab notebook dates its rounds by, in any case,
// alone or in the plural. It is spelled in two parts so that this file does
// not contain it.
var diaryWord = regexp.MustCompile(`(?i)\b` + "sess" + `ions?\b`)

// diaryWordAllowed lists the files where the word names a thing of the
// program's own domain (an HTTP one, a Beam runner's, one of the code parvet
// is measured on), each with the reason.
var diaryWordAllowed = map[string]string{
	"parvet/eval/corpus/syncthing+syncthing.tsv": "labels of syncthing's relay server, where the word is the name of a file and a loop of that server",
	"parvet/eval/corpus/kopia+kopia.tsv":         "labels of kopia's gRPC server, where the word is the name of a file and of the server's per-client loop",
}

// diaryLines returns the numbers of the lines of text that hold the word.
func diaryLines(text []byte) []int {
	var lines []int
	for n, line := range bytes.Split(text, []byte("\n")) {
		if diaryWord.Match(line) {
			lines = append(lines, n+1)
		}
	}
	return lines
}

// TestNoDiaryWord checks every text file of the project (Go, Markdown, the
// models, the scripts) for the word by which a measuring diary names its
// rounds. Figures belong to the results page, which names the command that
// reproduces each; who measured what when belongs to the commit messages.
func TestNoDiaryWord(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	for _, rel := range projectFiles(t, root) {
		if _, ok := diaryWordAllowed[filepath.ToSlash(rel)]; ok {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(text[:min(len(text), 8000)], 0) >= 0 {
			continue // binary
		}
		checked++
		for _, n := range diaryLines(text) {
			t.Errorf("%s:%d: %q: say what the code is and why; dates and rounds of measurement belong to the commit messages", rel, n, diaryWord.FindString(strings.Split(string(text), "\n")[n-1]))
		}
	}
	if checked == 0 {
		t.Fatal("found no text files to check")
	}
	t.Logf("checked %d text files", checked)
}

// TestDiaryWordCheckCatchesIt runs the matcher on lines with and without the
// word, so that a matcher that finds nothing fails here.
func TestDiaryWordCheckCatchesIt(t *testing.T) {
	w := "sess" + "ion"
	text := strings.Join([]string{
		"the fifth " + w + " measured it",          // 1: found
		"Held figures, " + strings.ToUpper(w) + "", // 2: any case
		"in two " + w + "s",                        // 3: plural
		"an obsession with speed",                  // inside a word: not found
		w + "_id is a name",                        // part of an identifier: not found
	}, "\n")
	if got, want := diaryLines([]byte(text)), []int{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("lines = %v, want %v", got, want)
	}
}

// A citation names a Markdown file, then a section of it in double quotes,
// after a comma, a space or an opening parenthesis (a file named as a
// Markdown link, [x.md](x.md), counts by its target), and may name more
// sections after it, each after "and" or a comma. The quoted text names a
// section: a heading of that file, or the lead-in of one of its paragraphs
// or list items (the bold "Latches." of runtime/SLEEP.md), whole or
// up to a word's end.
var (
	citation  = regexp.MustCompile(`([\w./-]*\w\.md)\)?[,\s]*\(?\s*"([^"]+)"((?:\s*(?:,|and)\s*"[^"]+")*)`)
	quoted    = regexp.MustCompile(`"([^"]+)"`)
	spaceRuns = regexp.MustCompile(`\s+`)
)

// A cited is one citation: where it is, the file it names and the section.
type cited struct {
	at      string // file:line of the citing text
	file    string // as written
	section string
}

// citationsIn returns the citations of a text, one per section named.
func citationsIn(at, text string) []cited {
	text = spaceRuns.ReplaceAllString(text, " ")
	var out []cited
	for _, m := range citation.FindAllStringSubmatch(text, -1) {
		out = append(out, cited{at, m[1], m[2]})
		for _, q := range quoted.FindAllStringSubmatch(m[3], -1) {
			out = append(out, cited{at, m[1], q[1]})
		}
	}
	return out
}

// goCitations returns the citations in the comments of a Go file, each
// comment group read as one text, so that a citation may wrap.
func goCitations(root, rel string) ([]cited, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil && !inBuildPath(root, rel) {
		return nil, nil // a file for a newer toolchain: see inBuild
	}
	if err != nil {
		return nil, err
	}
	var out []cited
	for _, cg := range f.Comments {
		at := fmt.Sprintf("%s:%d", rel, fset.Position(cg.Pos()).Line)
		out = append(out, citationsIn(at, cg.Text())...)
	}
	return out, nil
}

// markdownCitations returns the citations in a Markdown file's prose, each
// paragraph read as one text, code spans left out.
func markdownCitations(root, rel string) ([]cited, error) {
	var out []cited
	var para []string
	start := 0
	flush := func() {
		if len(para) > 0 {
			at := fmt.Sprintf("%s:%d", rel, start)
			out = append(out, citationsIn(at, codeSpan.ReplaceAllString(strings.Join(para, " "), ""))...)
		}
		para = para[:0]
	}
	err := eachProseLine(filepath.Join(root, rel), func(n int, line string) {
		if strings.TrimSpace(line) == "" {
			flush()
			return
		}
		if len(para) == 0 {
			start = n
		}
		para = append(para, line)
	})
	flush()
	return out, err
}

// sections returns what a citation of a Markdown file may name: the text of
// its headings, and the first line of each paragraph and list item, with
// code and bold marks and HTML anchors taken out.
func sections(path string) ([]string, error) {
	var out []string
	clean := func(s string) string {
		s = htmlAnchorTag.ReplaceAllString(s, "")
		s = strings.NewReplacer("`", "", "**", "").Replace(s)
		return strings.TrimSpace(s)
	}
	blank := true
	err := eachProseLine(path, func(_ int, line string) {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			blank = true
			return
		case strings.HasPrefix(trimmed, "#"):
			out = append(out, clean(strings.TrimLeft(trimmed, "#")))
			blank = true // a paragraph may follow a heading directly
			return
		case listItem.MatchString(trimmed):
			out = append(out, clean(listItem.ReplaceAllString(trimmed, "")))
		case blank:
			out = append(out, clean(trimmed))
		}
		blank = false
	})
	return out, err
}

var (
	htmlAnchorTag = regexp.MustCompile(`<a\s[^>]*>\s*</a>`)
	listItem      = regexp.MustCompile(`^(?:[-*+]|\d+\.)\s+`)
)

// names reports whether section names heading h: all of it, or its start up
// to the end of a word.
func names(section, h string) bool {
	if !strings.HasPrefix(h, section) {
		return false
	}
	rest := h[len(section):]
	if rest == "" {
		return true
	}
	r := []rune(rest)[0]
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// resolve finds the Markdown file a citation names: beside the citing file,
// from the root, or, for a bare name, the one file of that name in the
// project (runtime/*.md are cited as SLEEP.md and the like from
// elsewhere).
func resolve(root, from, file string, all []string) (string, bool) {
	for _, p := range []string{filepath.Join(root, filepath.Dir(from), file), filepath.Join(root, file)} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	if strings.Contains(file, "/") {
		return "", false
	}
	var found []string
	for _, rel := range all {
		if filepath.Base(rel) == file {
			found = append(found, filepath.Join(root, rel))
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return "", false
}

// checkCitations checks the citations of the given files (Go comments and
// Markdown prose) and returns what is wrong with them, and how many it
// checked.
func checkCitations(root string, files []string) (errs []string, checked int) {
	var cs []cited
	for _, rel := range files {
		var got []cited
		var err error
		switch {
		case strings.HasSuffix(rel, ".go"):
			got, err = goCitations(root, rel)
		case strings.HasSuffix(rel, ".md"):
			got, err = markdownCitations(root, rel)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", rel, err))
		}
		cs = append(cs, got...)
	}
	heads := map[string][]string{}
	for _, c := range cs {
		checked++
		from := strings.SplitN(c.at, ":", 2)[0]
		path, ok := resolve(root, from, c.file, files)
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: cites %s, %q: no such file", c.at, c.file, c.section))
			continue
		}
		hs, seen := heads[path]
		if !seen {
			var err error
			if hs, err = sections(path); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", path, err))
			}
			heads[path] = hs
		}
		if !slices.ContainsFunc(hs, func(h string) bool { return names(c.section, h) }) {
			errs = append(errs, fmt.Sprintf("%s: cites %s, %q: it has no such section (cite the section that holds the fact, by its heading)", c.at, c.file, c.section))
		}
	}
	return errs, checked
}

// TestCitedSectionsExist checks that every section the project's Go comments
// and Markdown cite by its heading, as in the comments that cite the results
// page's "Lazy promotion", is a section of the file named.
func TestCitedSectionsExist(t *testing.T) {
	root := repoRoot(t)
	var files []string
	for _, rel := range projectFiles(t, root) {
		if strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, ".md") {
			files = append(files, rel)
		}
	}
	errs, checked := checkCitations(root, files)
	for _, e := range errs {
		t.Error(e)
	}
	if checked == 0 {
		t.Fatal("found no citations: the check checked nothing")
	}
	t.Logf("checked %d citations of sections in %d files", checked, len(files))
}

// TestCitationCheckCatchesDeadCitations runs the check on a small tree with
// live and dead citations in a Go comment, in Markdown, and in places that
// are not citations, so that a check that finds nothing fails here.
func TestCitationCheckCatchesDeadCitations(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/notes.md", "# Notes\n\n## Lazy promotion: the board\n\n## `Sum` of floats\n\nSee notes.md, \"Gone\", and\n[notes.md](notes.md), \"Notes\".\n\n```\ndocs/notes.md, \"Fenced\"\n```\n")
	write("runtime/SLEEP.md", "# Sleep\n\n**Latches.** The setter stores set.\n\n- `Spares` are lent.\n")
	write("a/a.go", `package a

// f is cited (docs/notes.md, "Lazy
// promotion") and (SLEEP.md, "Latches"), and docs/notes.md, "Sum of
// floats" and "Lazy promo"; SLEEP.md, "Spares", and SLEEP.md, "The setter".
func f() string {
	return "docs/notes.md, \"Not a comment\""
}

// g cites docs/notes.md, "Lazy promotion: the old board", and
// docs/missing.md, "Anything".
func g() {}
`)
	errs, checked := checkCitations(root, []string{"a/a.go", "docs/notes.md", "runtime/SLEEP.md"})
	if checked != 10 {
		t.Errorf("checked %d citations, want 10:\n%s", checked, strings.Join(errs, "\n"))
	}
	want := []string{
		`a/a.go:10: cites docs/notes.md, "Lazy promotion: the old board"`,
		`a/a.go:10: cites docs/missing.md, "Anything": no such file`,
		`a/a.go:3: cites docs/notes.md, "Lazy promo"`,
		`a/a.go:3: cites SLEEP.md, "The setter"`,
		`docs/notes.md:7: cites notes.md, "Gone"`,
	}
	slices.Sort(errs)
	slices.Sort(want)
	if len(errs) != len(want) {
		t.Fatalf("errors:\n%s\nwant %d, starting with:\n%s", strings.Join(errs, "\n"), len(want), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(errs[i], want[i]) {
			t.Errorf("error %d = %q, want it to start with %q", i, errs[i], want[i])
		}
	}
}
