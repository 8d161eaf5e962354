// Package goldentest checks that the golden files of the analyzers'
// suggested fixes hold code that compiles and, where a fixed package is a
// program, that it prints what the program before the fix prints.
package goldentest

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// Compile type-checks and compiles, with go vet in GOPATH mode over a copy
// of testdata/src, package pkg with each golden file (or each section of a
// txtar golden file) in place of the file it fixes.
func Compile(t *testing.T, testdata, pkg string) {
	t.Helper()
	goldens, _ := filepath.Glob(filepath.Join(testdata, "src", pkg, "*.go.golden"))
	if len(goldens) == 0 {
		t.Fatalf("no golden files in %s", pkg)
	}
	for _, golden := range goldens {
		for _, s := range sections(t, golden) {
			gopath := t.TempDir()
			if err := os.CopyFS(filepath.Join(gopath, "src"), os.DirFS(filepath.Join(testdata, "src"))); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(gopath, "src", pkg, strings.TrimSuffix(filepath.Base(golden), ".golden"))
			if err := os.WriteFile(target, s.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("go", "vet", pkg)
			cmd.Dir = gopath
			cmd.Env = append(os.Environ(), "GO111MODULE=off", "GOPATH="+gopath, "GOFLAGS=", "GOTOOLCHAIN=local")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s, %q: the fixed package does not compile: %v\n%s", filepath.Base(golden), s.Name, err, out)
			}
		}
	}
}

// sections returns the fixed files a golden file holds: one per txtar
// section, or the whole file where it has none.
func sections(t *testing.T, golden string) []txtar.File {
	t.Helper()
	content, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(content)
	if len(ar.Files) == 0 {
		return []txtar.File{{Name: "all fixes", Data: ar.Comment}}
	}
	return ar.Files
}

// SameOutput builds and runs each of pkgs, main packages of testdata/src
// with golden files, as it is and once per fix message: with every golden
// file's section of that message in place of the file it fixes. It checks
// that every fixed program exits as the original does and prints the same.
//
// The programs build in a module of their own that replaces
// github.com/gopar-dev/gopar with the gopar module at root and requires
// parvet's golang.org/x/sync (read from parvet's go.mod in parvetDir), so
// that they run against gopar's real code and x/sync's real errgroup, not the
// analyzers' stubs. The build is offline (GOPROXY=off): the modules must be
// in the module cache, as they are once gopar's and parvet's tests have
// built. It uses -trimpath, so that a warm build cache holds the programs
// from one run to the next.
func SameOutput(t *testing.T, testdata, parvetDir, root string, pkgs ...string) {
	t.Helper()
	if len(pkgs) == 0 {
		t.Fatal("no packages to run")
	}
	if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !bytes.HasPrefix(b, []byte("module github.com/gopar-dev/gopar\n")) {
		t.Fatalf("%s is not gopar's module root (%v)", root, err)
	}
	parvetMod, err := os.ReadFile(filepath.Join(parvetDir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*golang\.org/x/sync (v\S+)`).FindSubmatch(parvetMod)
	if m == nil {
		t.Fatal("parvet's go.mod requires no golang.org/x/sync")
	}
	mod := t.TempDir()
	gomod := fmt.Sprintf("module fixedprograms\n\ngo 1.24\n\nrequire (\n\tgithub.com/gopar-dev/gopar v0.0.0\n\tgolang.org/x/sync %s\n)\n\nreplace github.com/gopar-dev/gopar => %s\n", m[1], root)
	var gosum []byte
	for _, dir := range []string{root, parvetDir} {
		b, err := os.ReadFile(filepath.Join(dir, "go.sum"))
		if err != nil {
			t.Fatal(err)
		}
		gosum = append(gosum, b...)
	}
	write := func(name string, data []byte) {
		t.Helper()
		path := filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte(gomod))
	write("go.sum", gosum)

	// One folder per program: the original and one per fix message.
	type program struct {
		pkg, fix, dir string
		fixed         []string // the files the fix changes
	}
	var originals []program
	fixed := map[string][]*program{}
	for _, pkg := range pkgs {
		src := filepath.Join(testdata, "src", filepath.FromSlash(pkg))
		files := mainFiles(t, src)
		goldens, _ := filepath.Glob(filepath.Join(src, "*.go.golden"))
		if len(goldens) == 0 {
			t.Fatalf("%s has no golden files", pkg)
		}
		base := strings.ReplaceAll(pkg, "/", "_")
		variants := map[string]map[string][]byte{"": files} // fix message -> files
		var msgs []string
		for _, golden := range goldens {
			target := strings.TrimSuffix(filepath.Base(golden), ".golden")
			for _, s := range sections(t, golden) {
				if bytes.Equal(s.Data, files[target]) || !bytes.Contains(s.Data, []byte(`"github.com/gopar-dev/gopar/par"`)) {
					t.Fatalf("%s, %q: the fixed file does not use gopar's par", golden, s.Name)
				}
				if variants[s.Name] == nil {
					variants[s.Name] = maps.Clone(files)
					msgs = append(msgs, s.Name)
					fixed[pkg] = append(fixed[pkg], &program{pkg: pkg, fix: s.Name, dir: fmt.Sprintf("%s_fix%d", base, len(msgs))})
				}
				variants[s.Name][target] = s.Data
				p := fixed[pkg][slices.Index(msgs, s.Name)]
				p.fixed = append(p.fixed, target)
			}
		}
		orig := program{pkg: pkg, dir: base + "_original"}
		originals = append(originals, orig)
		for name, data := range files {
			write(filepath.Join(orig.dir, name), data)
		}
		for k, msg := range msgs {
			for name, data := range variants[msg] {
				write(filepath.Join(fixed[pkg][k].dir, name), data)
			}
		}
	}

	// Build them all with one go command, then run each.
	bin := filepath.Join(mod, "bin")
	build := exec.Command("go", "build", "-trimpath", "-o", bin+string(filepath.Separator), "./...")
	build.Dir = mod
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the programs: %v\n%s", err, out)
	}
	run := func(p program) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, filepath.Join(bin, p.dir)).CombinedOutput()
		return string(out), err
	}
	for _, orig := range originals {
		want, err := run(orig)
		if err != nil || want == "" {
			t.Fatalf("%s before the fixes: %v, output %q", orig.pkg, err, want)
		}
		for _, p := range fixed[orig.pkg] {
			got, err := run(*p)
			if err != nil {
				t.Errorf("%s, %q fixes in %s: %v\n%s", p.pkg, p.fix, strings.Join(p.fixed, ", "), err, got)
			} else if got != want {
				t.Errorf("%s, %q fixes in %s: the program prints\n%s\nbefore the fixes it prints\n%s", p.pkg, p.fix, strings.Join(p.fixed, ", "), got, want)
			}
		}
	}
}

// mainFiles returns the Go files of the main package in dir, by name, and
// fails the test where dir holds no main package with a func main.
func mainFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	files := map[string][]byte{}
	hasMain := false
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, data, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name != "main" {
			t.Fatalf("%s: package %s is not a program", name, f.Name.Name)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "main" {
				hasMain = true
			}
		}
		files[filepath.Base(name)] = data
	}
	if !hasMain {
		t.Fatalf("%s has no func main", dir)
	}
	return files
}
