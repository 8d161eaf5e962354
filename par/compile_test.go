package par_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSumDoesNotCompileOnNonNumbers builds two small programs against this
// module: Sum on strings must be rejected by the compiler, Sum on ints
// accepted (so that the first failure is not for some other reason).
func TestSumDoesNotCompileOnNonNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	build := func(body string) (string, error) {
		dir := t.TempDir()
		mod := "module probe\n\ngo 1.23\n\nrequire github.com/gopar-dev/gopar v0.0.0\n\nreplace github.com/gopar-dev/gopar => " + root + "\n"
		src := "package main\n\nimport \"github.com/gopar-dev/gopar/par\"\n\nfunc main() {\n\t" + body + "\n}\n"
		for name, text := range map[string]string{"go.mod": mod, "main.go": src} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(gobin, "build", "-o", os.DevNull, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := build(`_, _ = par.Range(0, 10).Sum(), par.Sum(par.Map(par.Range(0, 3), func(i int) float64 { return 0.5 }))`); err != nil {
		t.Fatalf("numeric Sum does not build:\n%s", out)
	}
	out, err := build(`_ = par.Sum(par.Slice([]string{"a"}))`)
	if err == nil {
		t.Fatal("par.Sum on strings compiled")
	}
	if !strings.Contains(out, "string does not satisfy") {
		t.Fatalf("par.Sum on strings failed for another reason:\n%s", out)
	}
	if out, err := build(`_ = par.Slice([]string{"a"}).Sum()`); err == nil || !strings.Contains(out, "Sum") {
		t.Fatalf("Iter[string].Sum compiled or failed for another reason:\n%s", out)
	}
}
