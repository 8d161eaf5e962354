package doccheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gopar-dev/gopar/internal/long"
)

// The Go snippets of README.md and docs/ compile: each is built as a package
// of its own against this module, whose go.mod says go 1.24, with the names
// it leaves to the reader (the user's data and functions: lines, fetch,
// Record) declared by the prelude that the doc gives it, and the imports its
// selectors name. Two errors are the snippets' form, not faults: a result
// left unused, and a := that sets forms side by side. The snippets of the
// beam bridge are its module's, whose dependencies this one lacks.
//
// A step that changes the item type chains only with Go 1.27 or newer (the
// generic methods of par/chain.go): with an older toolchain, a snippet is
// built up to its first line that chains one, and CI's Go 1.27 leg builds
// every snippet whole (GOPAR_TEST_LONG=1 GOTOOLCHAIN=go1.27.3).

// A snippet's prelude sits in an HTML comment before its fence, out of the
// rendered page, and may span lines:
//
//	<!-- prelude: var lines []string -->
//	```go
//
// A doc's prelude ("<!-- doc prelude: ... -->") holds for every snippet
// after it in that doc.
var preludeStart = regexp.MustCompile(`^<!-- (doc )?prelude:(.*)$`)

// snippet is one ```go block of a doc: its text, the line of its first code
// line, and the declarations it is built with.
type snippet struct {
	doc     string
	line    int
	code    string
	prelude []string
}

// snippets returns the Go snippets of the doc at path.
func snippets(t *testing.T, root, rel string) []snippet {
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	var (
		out       []snippet
		docWide   []string
		next      []string
		cur       *snippet
		code      []string
		inPrelude *[]string // the prelude whose lines are being read
	)
	for n, line := range strings.Split(string(data), "\n") {
		n++
		switch {
		case inPrelude != nil:
			text, end := strings.CutSuffix(strings.TrimRight(line, " "), "-->")
			*inPrelude = append(*inPrelude, text)
			if end {
				inPrelude = nil
			}
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.code = strings.Join(code, "\n")
			out = append(out, *cur)
			cur, code = nil, nil
		case cur != nil:
			code = append(code, line)
		case strings.TrimSpace(line) == "```go":
			cur = &snippet{doc: rel, line: n + 1, prelude: append(slices.Clone(docWide), next...)}
			next = nil
		default:
			if m := preludeStart.FindStringSubmatch(line); m != nil {
				inPrelude = &next
				if m[1] != "" {
					inPrelude = &docWide
				}
				text, end := strings.CutSuffix(strings.TrimRight(m[2], " "), "-->")
				*inPrelude = append(*inPrelude, text)
				if end {
					inPrelude = nil
				}
			}
		}
	}
	return out
}

// importPaths are the packages a snippet may name without an import line,
// by the name it calls them.
var importPaths = map[string]string{
	"par": "github.com/gopar-dev/gopar/par", "bufio": "bufio", "bytes": "bytes", "context": "context",
	"errors": "errors", "fmt": "fmt", "io": "io", "log": "log", "maps": "maps", "math": "math",
	"os": "os", "runtime": "runtime", "slices": "slices", "sort": "sort", "strconv": "strconv",
	"strings": "strings", "sync": "sync", "atomic": "sync/atomic", "time": "time", "http": "net/http",
	"filepath": "path/filepath", "fs": "io/fs", "iter": "iter", "sha256": "crypto/sha256",
	"hex": "encoding/hex", "json": "encoding/json", "pprof": "runtime/pprof", "trace": "runtime/trace",
	"unicode": "unicode", "utf8": "unicode/utf8", "rand": "math/rand/v2", "testing": "testing",
	"errgroup": "snippets/errgroup",
}

// errgroupStub is golang.org/x/sync/errgroup's API, for the hand-written
// code that the docs set beside gopar's, without the module.
const errgroupStub = `package errgroup

import "context"

type Group struct{}

func WithContext(ctx context.Context) (*Group, context.Context) { return &Group{}, ctx }
func (g *Group) Go(f func() error)                              {}
func (g *Group) SetLimit(n int)                                 {}
func (g *Group) TryGo(f func() error) bool                      { return true }
func (g *Group) Wait() error                                    { return nil }
`

var selector = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.[A-Za-z_]`)

// source is the Go file of a snippet: its package clause, the imports its
// selectors name, its prelude, and its code: its declarations at top level
// (a line that starts with func or type, up to the closing brace at the
// start of a line), its statements in the body of a function. A snippet that
// is a whole file, package clause included, is that file.
func (s snippet) source(pkg string) string {
	if strings.HasPrefix(s.code, "package ") {
		return fmt.Sprintf("//line %s:%d\n%s\n", s.doc, s.line, s.code)
	}
	code, first := s.code, s.line
	var imports []string
	if strings.HasPrefix(code, "import ") {
		imp, rest, _ := strings.Cut(code, "\n")
		imports = append(imports, imp)
		code, first = rest, first+1
	}
	text := noComments.ReplaceAllString(strings.Join(s.prelude, "\n")+"\n"+code, "")
	seen := map[string]bool{}
	for _, m := range selector.FindAllStringSubmatch(text, -1) {
		if path, ok := importPaths[m[1]]; ok && !seen[m[1]] && !strings.Contains(strings.Join(imports, "\n"), strconv.Quote(path)) {
			seen[m[1]] = true
			imports = append(imports, fmt.Sprintf("import %s %q", m[1], path))
		}
	}
	slices.Sort(imports)
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n%s\n%s\n", pkg, strings.Join(imports, "\n"), strings.Join(s.prelude, "\n"))
	lines := strings.Split(code, "\n")
	var body []string // statements, each with its //line directive
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "func ") || strings.HasPrefix(lines[i], "type ") {
			fmt.Fprintf(&b, "//line %s:%d\n", s.doc, first+i)
			for ; i < len(lines); i++ {
				b.WriteString(lines[i] + "\n")
				if strings.HasPrefix(lines[i], "}") || !strings.HasSuffix(lines[i], "{") && i == len(lines)-1 {
					break
				}
				if !strings.HasSuffix(strings.TrimSpace(noComments.ReplaceAllString(lines[i], "")), "{") && strings.HasPrefix(lines[i], "type ") {
					break // a type on one line
				}
			}
			continue
		}
		body = append(body, fmt.Sprintf("//line %s:%d\n%s", s.doc, first+i, lines[i]))
	}
	fmt.Fprintf(&b, "func _() error {\n%s\nreturn nil\n}\n", strings.Join(body, "\n"))
	return b.String()
}

var (
	noComments = regexp.MustCompile(`//.*`)
	beam       = regexp.MustCompile(`\bbeam\.|/beam"`)
	docLine    = regexp.MustCompile(`(?:README|docs/[\w.-]+)\.md:\d+`)
)

// chainMethods are the methods of par/chain.go: the steps that chain with
// Go 1.27 or newer.
func chainMethods(t *testing.T, root string) []string {
	text, err := os.ReadFile(filepath.Join(root, "par", "chain.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^func \([a-z]+ [A-Za-z]+(?:\[[^]]*\])?\) ([A-Z]\w*)\[`).FindAllStringSubmatch(string(text), -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		t.Fatal("par/chain.go declares no generic method")
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

// go127 reports whether the running toolchain has generic methods.
func go127() bool {
	v := strings.TrimPrefix(runtime.Version(), "go")
	var major, minor int
	fmt.Sscanf(v, "%d.%d", &major, &minor)
	return major > 1 || major == 1 && minor >= 27
}

func TestSnippetsCompile(t *testing.T) {
	if !long.Enabled() {
		t.Skip("builds every snippet, about 20 s on 2 cores: set " + long.EnvVar + "=1")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root := repoRoot(t)
	docs := []string{"README.md"}
	matches, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range matches {
		rel, _ := filepath.Rel(root, m)
		docs = append(docs, rel)
	}
	dir := t.TempDir()
	goVersion := "1.24"
	if go127() {
		goVersion = "1.27"
	}
	mod := "module snippets\n\ngo " + goVersion + "\n\nrequire github.com/gopar-dev/gopar v0.0.0\n\nreplace github.com/gopar-dev/gopar => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "errgroup"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "errgroup", "errgroup.go"), []byte(errgroupStub), 0o644); err != nil {
		t.Fatal(err)
	}
	var all []snippet
	for _, doc := range docs {
		for _, s := range snippets(t, root, doc) {
			if beam.MatchString(s.code) {
				continue // the beam module's, whose dependencies this module does not have
			}
			all = append(all, s)
		}
	}
	if len(all) == 0 {
		t.Fatal("no snippet found")
	}
	for k, s := range all {
		pkg := fmt.Sprintf("s%02d", k)
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, pkg, "snippet.go"), []byte(s.source(pkg)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(gobin, "build", "-gcflags=-e", "./...") // every error, where vet stops at a package's first
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	out, _ := cmd.CombinedOutput()
	// The lines of the snippets, by "doc:line", that an older toolchain
	// leaves to the Go 1.27 leg: from the first that chains a Go 1.27 step
	// on, since the names it defines have other types without it.
	chain := regexp.MustCompile(`\.(` + strings.Join(chainMethods(t, root), "|") + `)\(`)
	newer := map[string]bool{}
	for _, s := range all {
		after := false
		for i, line := range strings.Split(s.code, "\n") {
			// par.FlatMap(...) is the function: a method follows a value.
			code := strings.ReplaceAll(noComments.ReplaceAllString(line, ""), "par.", "")
			after = after || chain.MatchString(code)
			newer[fmt.Sprintf("%s:%d", s.doc, s.line+i)] = after
		}
	}
	var bad []string
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !go127() && newer[docLine.FindString(line)] {
			continue
		}
		if strings.Contains(line, "sync.Go requires go1.25") {
			continue // the hand-written code beside gopar's uses WaitGroup.Go, as the guide says
		}
		if strings.Contains(line, "declared and not used") || strings.Contains(line, "no new variables on left side") {
			continue // snippets set forms side by side, and leave their results to the reader
		}
		bad = append(bad, line)
	}
	if len(bad) > 0 {
		t.Errorf("%d errors in the %d snippets, as built with %s:\n%s", len(bad), len(all), runtime.Version(), strings.Join(bad, "\n"))
	}
}
