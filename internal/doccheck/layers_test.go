package doccheck

import (
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module is the import path of the repository's main module.
const module = "github.com/gopar-dev/gopar"

// layerRow matches a row of a layer table: its first cell names a package
// of the module in backquotes.
var layerRow = regexp.MustCompile("^\\| `([a-z/]+)` \\|")

// layerTable returns the packages of the table under the heading "##
// Layers" of the Markdown file path, top row first.
func layerTable(t *testing.T, path string) []string {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(text), "\n## Layers\n")
	if !ok {
		t.Fatalf("%s: no section \"## Layers\"", path)
	}
	var pkgs []string
	for _, line := range strings.Split(after, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if m := layerRow.FindStringSubmatch(line); m != nil {
			pkgs = append(pkgs, m[1])
		}
	}
	if len(pkgs) == 0 {
		t.Fatalf("%s: the section \"## Layers\" has no table of packages", path)
	}
	return pkgs
}

// libraryPackages returns the packages of the main module that the layer
// table must list, as paths relative to the module: every directory with
// a non-test Go file, but for commands, examples, other modules (those with
// a go.mod of their own) and testdata.
func libraryPackages(t *testing.T, root string) []string {
	t.Helper()
	var pkgs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "examples" || name == "cmd") {
			return filepath.SkipDir
		}
		if rel != "." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		if p, err := build.ImportDir(path, 0); err == nil && len(p.GoFiles) > 0 {
			pkgs = append(pkgs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// moduleImports returns the packages of the module that the package in
// directory rel imports, from its non-test files under any build tag.
func moduleImports(t *testing.T, root, rel string) []string {
	t.Helper()
	ctx := build.Default
	ctx.UseAllFiles = true // every build tag: a gopar_debug or Go 1.27 file counts too
	p, err := ctx.ImportDir(filepath.Join(root, rel), 0)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	var deps []string
	for _, imp := range p.Imports {
		if dep, ok := strings.CutPrefix(imp, module+"/"); ok {
			deps = append(deps, dep)
		}
	}
	return deps
}

// TestLayerTables checks the layer tables of docs/design.md and README.md
// against the imports: design.md's lists every library package of the
// module once, each of them imports only packages listed below it, and
// README's lists some of them in the same order.
func TestLayerTables(t *testing.T) {
	root := repoRoot(t)
	layers := layerTable(t, filepath.Join(root, "docs", "design.md"))
	at := map[string]int{}
	for i, p := range layers {
		if _, dup := at[p]; dup {
			t.Errorf("docs/design.md: %s is in the layer table twice", p)
		}
		at[p] = i
	}
	for _, p := range libraryPackages(t, root) {
		if p == "internal/doccheck" {
			continue // this package: tests only
		}
		i, ok := at[p]
		if !ok {
			t.Errorf("docs/design.md: package %s is not in the layer table", p)
			continue
		}
		for _, dep := range moduleImports(t, root, p) {
			if j, ok := at[dep]; !ok || j <= i {
				t.Errorf("%s imports %s, which the layer table of docs/design.md does not list below it", p, dep)
			}
		}
	}
	for _, p := range layers {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("docs/design.md: the layer table lists %s, which is not a package of the module", p)
		}
	}
	readme := layerTable(t, filepath.Join(root, "README.md"))
	last := -1
	for _, p := range readme {
		i, ok := at[p]
		switch {
		case !ok:
			t.Errorf("README.md: the layer table lists %s, which docs/design.md's does not", p)
		case i < last:
			t.Errorf("README.md: the layer table lists %s below a package that docs/design.md's puts under it", p)
		default:
			last = i
		}
	}
	if !slices.Contains(readme, "par") {
		t.Error("README.md: the layer table does not list par")
	}
}

// facades are the public packages that only re-export what a package below
// them declares: users import them, no package of the module does.
var facades = []string{"iter"}

// TestFacadesAreLeaves: no package of the module imports a facade.
func TestFacadesAreLeaves(t *testing.T) {
	root := repoRoot(t)
	for _, e := range facadeImports(t, root, facades) {
		t.Error(e)
	}
}

// TestFacadeCheckFails: the check reports a package that imports one of
// the facades it is given (par imports internal/pipe).
func TestFacadeCheckFails(t *testing.T) {
	errs := facadeImports(t, repoRoot(t), []string{"internal/pipe"})
	if !slices.ContainsFunc(errs, func(e string) bool { return strings.HasPrefix(e, "par imports internal/pipe") }) {
		t.Errorf("facadeImports with internal/pipe as a facade = %q, want par reported", errs)
	}
}

// facadeImports returns an error for each library package of the module
// at root that imports one of facades.
func facadeImports(t *testing.T, root string, facades []string) []string {
	var errs []string
	for _, p := range libraryPackages(t, root) {
		for _, dep := range moduleImports(t, root, p) {
			if slices.Contains(facades, dep) {
				errs = append(errs, fmt.Sprintf("%s imports %s, a facade that no package of the module imports: import the package it is a facade of", p, dep))
			}
		}
	}
	return errs
}
