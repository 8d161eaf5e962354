package doccheck

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// repoRoot is the top of the git work tree, where the Markdown files live.
func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		// Not a git checkout (a module cache, a tarball): walk up to go.mod.
		dir, _ := filepath.Abs(".")
		for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !strings.Contains(dir, "internal") {
				return dir
			}
		}
		t.Skip("cannot find the repository's root")
	}
	return strings.TrimSpace(string(out))
}

// markdownFiles lists the repository's Markdown files, skipping what
// belongs to no document (vendored or generated trees, test data).
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules", "vendor":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A document is the text of a Markdown file, outside its code, and the
// anchors its headings define.
type document struct {
	links   []link
	anchors map[string]bool
}

type link struct {
	line   int
	target string
}

var (
	// [text](target) and ![alt](target); the text may hold code spans.
	inlineLink = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

func parse(path string) (*document, error) {
	doc := &document{anchors: map[string]bool{}}
	seen := map[string]int{}
	err := eachProseLine(path, func(n int, line string) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			doc.anchors[m[1]] = true
		}
		if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "#") {
			title := strings.TrimSpace(strings.TrimLeft(trimmed, "#"))
			slug := slugify(title)
			if k := seen[slug]; k > 0 {
				doc.anchors[fmt.Sprintf("%s-%d", slug, k)] = true
			} else {
				doc.anchors[slug] = true
			}
			seen[slug]++
		}
		text := codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			doc.links = append(doc.links, link{line: n, target: m[1]})
		}
	})
	return doc, err
}

// eachProseLine calls fn, in order, with each line of a Markdown file that
// is outside fenced code, and its number.
func eachProseLine(path string, fn func(n int, line string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fence := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		fn(n, line)
	}
	return sc.Err()
}

// slugify turns a heading into the anchor GitHub gives it: lower case,
// punctuation dropped but for hyphens and underscores, spaces made hyphens.
func slugify(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestMarkdownLinksResolve checks every relative link of every Markdown file:
// the file it names exists, and an anchor names a heading of that file.
// Links with a scheme (https:, mailto:) are not followed: there is no network.
func TestMarkdownLinksResolve(t *testing.T) {
	root := repoRoot(t)
	docs := map[string]*document{}
	load := func(path string) (*document, error) {
		if d, ok := docs[path]; ok {
			return d, nil
		}
		d, err := parse(path)
		if err == nil {
			docs[path] = d
		}
		return d, err
	}
	files := markdownFiles(t, root)
	if len(files) == 0 {
		t.Fatal("found no Markdown files under " + root)
	}
	checked := 0
	for _, path := range files {
		doc, err := load(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		for _, l := range doc.links {
			if strings.Contains(l.target, ":") { // a scheme: not ours to check
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(l.target, "#")
			target := path
			if file != "" {
				target = filepath.Join(filepath.Dir(path), file)
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d: link to %q: no such file or folder", rel, l.line, l.target)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			td, err := load(target)
			if err != nil {
				t.Fatal(err)
			}
			if !td.anchors[anchor] {
				t.Errorf("%s:%d: link to %q: %s has no heading with the anchor %q", rel, l.line, l.target, filepath.Base(target), anchor)
			}
		}
	}
	t.Logf("checked %d relative links in %d Markdown files", checked, len(files))
}

// TestSlugify pins the anchor rule on headings of the kind the docs use, so
// that the link check cannot pass by accepting anything.
func TestSlugify(t *testing.T) {
	for title, want := range map[string]string{
		"Bad input": "bad-input",
		"Fork-join: par.Join, Worker.Join, Pool.Do, Scope": "fork-join-parjoin-workerjoin-pooldo-scope",
		"Consuming an iter.Seq: FromSeq":                   "consuming-an-iterseq-fromseq",
		"`Sum` of floats":                                  "sum-of-floats",
		"W1 (2^26 items)":                                  "w1-226-items",
	} {
		if got := slugify(title); got != want {
			t.Errorf("slugify(%q) = %q, want %q", title, got, want)
		}
	}
}

// TestLinkCheckCatchesDeadLinks runs the parser on a document with a dead
// anchor and a live one, so that a parser that finds no links fails here.
func TestLinkCheckCatchesDeadLinks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.md")
	text := "# Top\n\nSee [here](#top) and [there](#nowhere), not `[code](#x)`.\n\n```\n[fenced](#y)\n```\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := parse(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.links) != 2 {
		t.Fatalf("found %d links, want 2 (code spans and fences hold none): %v", len(doc.links), doc.links)
	}
	if !doc.anchors["top"] || doc.anchors["nowhere"] {
		t.Fatalf("anchors = %v, want top only", doc.anchors)
	}
}
