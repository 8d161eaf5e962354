// Package goldentest checks that the golden files of the analyzers'
// suggested fixes hold code that compiles.
package goldentest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
		content, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		ar := txtar.Parse(content)
		sections := ar.Files
		if len(sections) == 0 {
			sections = []txtar.File{{Name: "all fixes", Data: ar.Comment}}
		}
		for _, s := range sections {
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
