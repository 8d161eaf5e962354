package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDiffImpliesFix(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"parvet", "-diff", "./..."}, []string{"parvet", "-fix", "-diff", "./..."}},
		{[]string{"parvet", "--diff", "-fanout", "./..."}, []string{"parvet", "-fix", "--diff", "-fanout", "./..."}},
		{[]string{"parvet", "-diff=true", "./..."}, []string{"parvet", "-fix", "-diff=true", "./..."}},
		{[]string{"parvet", "-fix", "-diff", "./..."}, []string{"parvet", "-fix", "-diff", "./..."}},
		{[]string{"parvet", "-diff=false", "./..."}, []string{"parvet", "-diff=false", "./..."}},
		{[]string{"parvet", "./...", "-diff"}, []string{"parvet", "./...", "-diff"}}, // a package name, not a flag
		{[]string{"parvet", "./..."}, []string{"parvet", "./..."}},
	} {
		if got := diffImpliesFix(c.in); !slices.Equal(got, c.want) {
			t.Errorf("diffImpliesFix(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestModuleGo(t *testing.T) {
	for _, c := range []struct{ mod, want string }{
		{"module m\n\ngo 1.27\n", "go1.27.0"},
		{"module m\n\ngo 1.26.2\n", "go1.26.2"},
		{"module m\n\ngo 1.27\n\ntoolchain go1.27.3\n", "go1.27.3"},
		{"module m\n\ngo 1.18\n", "go1.18"},
		{"module m\n", ""},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(c.mod), 0o644); err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, "a", "b")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if file, got := moduleGo(sub); got != c.want || file != filepath.Join(dir, "go.mod") {
			t.Errorf("%q: moduleGo = %s, %q, want %s, %q", c.mod, file, got, filepath.Join(dir, "go.mod"), c.want)
		}
	}
}

func TestTakeTags(t *testing.T) {
	for _, c := range []struct {
		in, rest []string
		tags     string
	}{
		{[]string{"parvet", "-tags", "integration", "./..."}, []string{"parvet", "./..."}, "integration"},
		{[]string{"parvet", "-fanout", "--tags=a,b", "./..."}, []string{"parvet", "-fanout", "./..."}, "a,b"},
		{[]string{"parvet", "-fix", "./..."}, []string{"parvet", "-fix", "./..."}, ""},
		{[]string{"parvet", "./...", "-tags", "x"}, []string{"parvet", "./...", "-tags", "x"}, ""}, // after the packages
	} {
		rest, tags := takeTags(c.in)
		if !slices.Equal(rest, c.rest) || tags != c.tags {
			t.Errorf("takeTags(%q) = %q, %q, want %q, %q", c.in, rest, tags, c.rest, c.tags)
		}
	}
}

func TestFixNote(t *testing.T) {
	for _, c := range []struct {
		args          []string
		mod           string
		getGopar, vet bool // the note says to get gopar; it says what go test's vet then reports
	}{
		{[]string{"parvet", "-fix", "./..."}, "module m\n\ngo 1.22\n", true, true},
		{[]string{"parvet", "-fix", "./..."}, "module m\n\ngo 1.25.1\n", true, false},
		{[]string{"parvet", "-fix", "./..."}, "module m\n\ngo 1.22\n\nrequire github.com/gopar-dev/gopar v0.1.0\n", false, false},
		{[]string{"parvet", "-fix", "./..."}, "module m\n\ngo 1.24\n\nrequire (\n\tgithub.com/gopar-dev/gopar v0.1.0\n)\n", false, false},
		{[]string{"parvet", "-fix", "./..."}, "module github.com/gopar-dev/gopar\n\ngo 1.24\n", false, false},
		{[]string{"parvet", "-fix", "-diff", "./..."}, "module m\n\ngo 1.22\n", false, false}, // -diff writes nothing
		{[]string{"parvet", "./..."}, "module m\n\ngo 1.22\n", false, false},
	} {
		modFile := filepath.Join(t.TempDir(), "go.mod")
		if err := os.WriteFile(modFile, []byte(c.mod), 0o644); err != nil {
			t.Fatal(err)
		}
		note := ""
		if fixWrites(c.args) {
			note = fixNote(modFile)
		}
		if got := strings.Contains(note, "go get github.com/gopar-dev/gopar@latest"); got != c.getGopar {
			t.Errorf("%q over %q: the note says to get gopar: %v, want %v:\n%s", c.args, c.mod, got, c.getGopar, note)
		}
		if got := strings.Contains(note, "from 1.22 to 1.24") && strings.Contains(note, "fmt.Print(s)"); got != c.vet {
			t.Errorf("%q over %q: the note says what the go line changes: %v, want %v:\n%s", c.args, c.mod, got, c.vet, note)
		}
	}
}

// build builds parvet into a temporary folder.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "parvet")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestDiffPrintsFixes runs parvet -diff, without -fix, on a copy of
// testdata/oldmodule: it prints the fix as a diff and leaves the file as it
// was.
func TestDiffPrintsFixes(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "oldmodule"))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "fanold", "fanold.go")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-fanout", "-diff", "./...")
	cmd.Dir = dir
	out, _ := cmd.Output()
	if !strings.Contains(string(out), "+++ ") || !strings.Contains(string(out), "par.Range(0, n)") {
		t.Errorf("parvet -diff printed no diff of the fix:\n%s", out)
	}
	after, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Errorf("parvet -diff changed %s", file)
	}
}

// TestTagsReachGoList runs parvet over a copy of testdata/oldmodule whose
// fan-out is behind a build tag: it is found with -tags, as go vet finds
// it, and not without.
func TestTagsReachGoList(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "oldmodule"))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "fanold", "fanold.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append([]byte("//go:build integration\n\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	note := "parvet: 1 file(s) behind build tags are not checked (fanold/fanold.go); -tags integration includes them"
	for _, c := range []struct {
		args  []string
		found bool // the fan-out is reported, and the note is not
	}{
		{[]string{"-fanout", "./..."}, false},
		{[]string{"-fanout", "-tags", "integration", "./..."}, true},
		{[]string{"-tags=integration", "-fanout", "./..."}, true},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		out, _ := cmd.CombinedOutput()
		if got := strings.Contains(string(out), "fanold.go:"); got != c.found {
			t.Errorf("parvet %q: reported the tagged file's fan-out: %v, want %v:\n%s", c.args, got, c.found, out)
		}
		if got := strings.Contains(string(out), note); got == c.found {
			t.Errorf("parvet %q: printed the note on the tagged file: %v, want %v:\n%s", c.args, got, !c.found, out)
		}
	}
}

// TestHelpDescribesTags runs parvet -h: -tags is described as parvet
// treats it, not as the analysis driver's flag with no effect.
func TestHelpDescribesTags(t *testing.T) {
	out, _ := exec.Command(build(t), "-h").CombinedOutput()
	if !strings.Contains(string(out), tagsUsage) || strings.Contains(string(out), "-tags string\n    \tno effect") {
		t.Errorf("parvet -h does not describe -tags as parvet treats it:\n%s", out)
	}
}

// TestNewerGo runs parvet, built from source, in a module that needs a Go
// newer than the one that built it: it says which toolchain to build it
// with, instead of the type checker's error for each package.
func TestNewerGo(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.99\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "./...")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("parvet succeeded in a module that needs go1.99:\n%s", out)
	}
	if !strings.Contains(string(out), "needs go1.99.0") || !strings.Contains(string(out), "GOTOOLCHAIN=go1.99.0 go install ./cmd/parvet") {
		t.Errorf("parvet's message does not say which toolchain to build it with:\n%s", out)
	}
}
