package par_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSumDoesNotCompileOnNonNumbers type-checks three small packages
// against this module with one go vet (the compiler's type checker, without
// the cost of compiling par's generic code for each): Sum on strings, as a
// function and as a method, must be rejected, Sum on numbers accepted (so
// that the failures are not for some other reason).
func TestSumDoesNotCompileOnNonNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module probe\n\ngo 1.24\n\nrequire github.com/gopar-dev/gopar v0.0.0\n\nreplace github.com/gopar-dev/gopar => "+root+"\n")
	bodies := map[string]string{
		"numbers": `_, _ = par.Range(0, 10).Sum(), par.Sum(par.Map(par.Range(0, 3), func(i int) float64 { return 0.5 }))`,
		"strfunc": `_ = par.Sum(par.Slice([]string{"a"}))`,
		"strmeth": `_ = par.Slice([]string{"a"}).Sum()`,
	}
	for name, body := range bodies {
		write(name+"/probe.go", "package "+name+"\n\nimport \"github.com/gopar-dev/gopar/par\"\n\nfunc F() {\n\t"+body+"\n}\n")
	}
	cmd := exec.Command(gobin, "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("par.Sum and Iter.Sum on strings compiled:\n%s", out)
	}
	// go vet prints each failing package's errors under "# probe/NAME".
	errs := map[string]string{}
	name := ""
	for _, line := range strings.Split(string(out), "\n") {
		if pkg, ok := strings.CutPrefix(line, "# probe/"); ok {
			name = pkg
			continue
		}
		errs[name] += line + "\n"
	}
	if msg, failed := errs["numbers"]; failed {
		t.Fatalf("numeric Sum does not build:\n%s", msg)
	}
	if msg := errs["strfunc"]; !strings.Contains(msg, "string does not satisfy") {
		t.Fatalf("par.Sum on strings compiled or failed for another reason:\n%s", out)
	}
	if msg := errs["strmeth"]; !strings.Contains(msg, "Sum") {
		t.Fatalf("Iter[string].Sum compiled or failed for another reason:\n%s", out)
	}
}
