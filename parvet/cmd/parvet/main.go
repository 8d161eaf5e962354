// Command parvet runs parvet's analyzers: callbackrace, which reports data
// races in the callbacks of gopar's parallel operations, fanout, which
// finds hand-rolled goroutine fan-outs that a gopar operation replaces, and
// lockheld, which reports a mutex held across a gopar call whose callbacks
// lock it.
//
// From a clone of gopar, install it and run it in your module:
//
//	(cd gopar/parvet && go install ./cmd/parvet) && parvet ./...
//
// or, once parvet is published, from the module proxy:
//
//	go run github.com/gopar-dev/gopar/parvet/cmd/parvet@latest ./...
//
// It also runs through go vet, which then runs parvet's analyzers instead
// of its own:
//
//	go vet -vettool=$(which parvet) ./...
//
// The flags -callbackrace, -fanout and -lockheld select analyzers; -diff prints the
// suggested fixes (the first one of each report) as a diff, and -fix
// applies them.
//
// parvet type-checks the code with the go/types of the Go it was built
// with, which refuses a module whose go line is newer. For such a module it
// runs itself again, built by the toolchain the module asks for
// (GOTOOLCHAIN, as the go command does), where it came from the module
// proxy; a parvet built from a clone says how to build it with that
// toolchain.
package main

import (
	"bytes"
	"flag"
	"fmt"
	gobuild "go/build"
	"go/build/constraint"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/gopar-dev/gopar/parvet/callbackrace"
	"github.com/gopar-dev/gopar/parvet/fanout"
	"github.com/gopar-dev/gopar/parvet/lockheld"
)

func main() {
	// -tags first: its value, which may follow it as an argument of its
	// own, is not a package.
	args, tags := takeTags(os.Args)
	if tags != "" {
		os.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -tags="+tags))
	}
	os.Args = diffImpliesFix(args)
	if len(os.Args) > 1 && !strings.HasSuffix(os.Args[len(os.Args)-1], ".cfg") {
		// Run directly over packages (not as go vet's tool, which gives a
		// .cfg file): check that this Go can type-check the module.
		if dir, err := os.Getwd(); err == nil {
			modFile, want := moduleGo(dir)
			if want != "" && version.Compare(want, runtime.Version()) > 0 {
				os.Exit(rerun(modFile, want))
			}
			if modFile != "" && fixWrites(os.Args) {
				fmt.Fprint(os.Stderr, fixNote(modFile))
			}
			test, given := boolFlags(os.Args)["test"]
			fmt.Fprint(os.Stderr, taggedNote(taggedFiles(packageArgs(os.Args), tags, test || !given)))
		}
	}
	flag.Usage = usage
	multichecker.Main(callbackrace.Analyzer, fanout.Analyzer, lockheld.Analyzer)
}

// tagsUsage is -tags's line in parvet's help. The analysis driver
// registers -tags as a flag with no effect; parvet takes it first
// (takeTags).
const tagsUsage = "comma-separated build tags, as go vet's -tags: files behind them are checked"

// usage prints the flags, as the flag package does, with -tags described
// as parvet treats it.
func usage() {
	if f := flag.Lookup("tags"); f != nil {
		f.Usage = tagsUsage
	}
	fmt.Fprintf(flag.CommandLine.Output(), "Usage of %s:\n", os.Args[0])
	flag.PrintDefaults()
}

// diffImpliesFix returns args with -fix added where -diff is given without
// -fix. The checker prints the fixes only under -fix, and -diff then makes
// it print them as a diff instead of writing the files.
func diffImpliesFix(args []string) []string {
	flags := boolFlags(args)
	diff := flags["diff"]
	_, fix := flags["fix"] // given, either way
	if !diff || fix {
		return args
	}
	return append([]string{args[0], "-fix"}, args[1:]...)
}

// takeTags returns args without their -tags flag, and that flag's value:
// parvet passes the build tags to the go command that lists the packages
// (GOFLAGS), as go vet does with its -tags, where the analysis driver's own
// -tags flag has no effect.
func takeTags(args []string) (rest []string, tags string) {
	rest = []string{args[0]}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return append(rest, args[i:]...), tags
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "tags" {
			rest = append(rest, a)
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		tags = value
	}
	return rest, tags
}

// packageArgs returns the package patterns of args: what follows the flags.
func packageArgs(args []string) []string {
	for i := 1; i < len(args); i++ {
		if args[i] == "--" {
			return args[i+1:]
		}
		if !strings.HasPrefix(args[i], "-") {
			return args[i:]
		}
	}
	return nil
}

// taggedFiles returns the Go files in the directories of patterns that the
// build leaves out for a build tag of the user's (not an operating system,
// an architecture, a Go version, cgo or a compiler), each with the tags of
// its constraint. tags are the build tags given (-tags), which the build
// includes; tests says whether test files count (parvet's -test). A pattern ending in "/..." is walked as the go command walks
// it, testdata, vendor and nested modules left out, so that a package whose
// every file is left out, which the go command does not list, counts too.
func taggedFiles(patterns []string, tags string, tests bool) map[string][]string {
	ctx := gobuild.Default
	if tags != "" {
		ctx.BuildTags = strings.Split(tags, ",")
	}
	files := map[string][]string{}
	for _, dir := range patternDirs(patterns) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || !tests && strings.HasSuffix(name, "_test.go") {
				continue
			}
			if ok, err := ctx.MatchFile(dir, name); err != nil || ok {
				continue
			}
			path := filepath.Join(dir, name)
			if ts := userTags(path); len(ts) > 0 {
				files[path] = ts
			}
		}
	}
	return files
}

// patternDirs returns the directories that the package patterns name: a
// relative one ("./x", "./x/...", "./...") as a directory tree, any other
// as the go command lists its packages.
func patternDirs(patterns []string) []string {
	var dirs, listed []string
	for _, p := range patterns {
		if p != "." && p != ".." && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") {
			listed = append(listed, p)
			continue
		}
		root, walk := strings.CutSuffix(p, "/...")
		if !walk {
			dirs = append(dirs, p)
			continue
		}
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			name := d.Name()
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // another module
			}
			dirs = append(dirs, path)
			return nil
		})
	}
	if len(listed) > 0 {
		out, _ := exec.Command("go", append([]string{"list", "-e", "-f", "{{.Dir}}"}, listed...)...).Output()
		for _, d := range strings.Fields(string(out)) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// userTags returns the tags of the //go:build line of the Go file path that
// are not an operating system, an architecture, a Go version, cgo, a
// compiler or ignore.
func userTags(path string) []string {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	for _, line := range bytes.Split(src, []byte("\n")) {
		text := strings.TrimSpace(string(line))
		if strings.HasPrefix(text, "package ") {
			return nil
		}
		if !constraint.IsGoBuild(text) {
			continue
		}
		expr, err := constraint.Parse(text)
		if err != nil {
			return nil
		}
		var tags []string
		expr.Eval(func(tag string) bool {
			if !platformTag(tag) && !slices.Contains(tags, tag) {
				tags = append(tags, tag)
			}
			return false
		})
		return tags
	}
	return nil
}

// platformTag reports whether tag names what the go command sets by itself
// or by a flag of its own: an operating system or architecture, a Go
// version, an experiment, cgo, a compiler, unix, the race detector and the
// sanitizers, or ignore (a file kept out of every build).
func platformTag(tag string) bool {
	if strings.HasPrefix(tag, "go1.") || strings.HasPrefix(tag, "goexperiment.") {
		return true
	}
	switch tag {
	case "aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js", "linux", "nacl",
		"netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos",
		"386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64", "mips", "mipsle", "mips64",
		"mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le", "riscv", "riscv64", "s390", "s390x",
		"sparc", "sparc64", "wasm",
		"unix", "cgo", "gc", "gccgo", "ignore", "race", "msan", "asan":
		return true
	}
	return false
}

// taggedNote returns what parvet says of the files that files lists (from
// taggedFiles), which it does not check: how many, which, and the -tags
// flag that includes them. It returns "" for none.
func taggedNote(files map[string][]string) string {
	if len(files) == 0 {
		return ""
	}
	var paths, tags []string
	for path, ts := range files {
		paths = append(paths, path)
		for _, t := range ts {
			if !slices.Contains(tags, t) {
				tags = append(tags, t)
			}
		}
	}
	sort.Strings(paths)
	sort.Strings(tags)
	shown := paths
	if len(shown) > 3 {
		shown = shown[:3]
	}
	wd, _ := os.Getwd()
	for i, p := range shown {
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			shown[i] = rel
		}
	}
	more := ""
	if len(paths) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(paths)-len(shown))
	}
	return fmt.Sprintf("parvet: %d file(s) behind build tags are not checked (%s%s); -tags %s includes them\n",
		len(paths), strings.Join(shown, ", "), more, strings.Join(tags, ","))
}

// fixWrites reports whether args ask parvet to write its fixes into the
// files: -fix without -diff.
func fixWrites(args []string) bool {
	flags := boolFlags(args)
	return flags["fix"] && !flags["diff"]
}

// boolFlags returns the flags of args, those before the packages, as
// booleans by name: -x, --x and -x=true give true, -x=false false.
func boolFlags(args []string) map[string]bool {
	flags := map[string]bool{}
	for _, a := range args[1:] {
		if a == "--" || !strings.HasPrefix(a, "-") {
			break // the packages
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		flags[name] = !hasValue || value != "false"
	}
	return flags
}

// goparModule is the module that parvet's fixes import.
const goparModule = "github.com/gopar-dev/gopar"

// goparGo is the go line of gopar's go.mod: a module that requires gopar
// gets at least this go line.
const goparGo = "1.24"

// fixNote returns what parvet says before it writes fixes into a module
// whose go.mod, modFile, does not require gopar yet: parvet adds the
// imports, and leaves go.mod to the user, with the command to run and
// what it changes. It returns "" where go.mod requires gopar already, or
// cannot be read.
func fixNote(modFile string) string {
	m, ok := readGoMod(modFile)
	if !ok || m.gopar {
		return "" // unreadable, gopar itself, or a module that requires it
	}
	note := fmt.Sprintf("parvet: the fixes import %s/par, which %s does not require: once they are written, run\n\tgo get %s@latest\n", goparModule, modFile, goparModule)
	if m.goLine != "" && version.Compare("go"+m.goLine, "go"+goparGo) < 0 {
		note += fmt.Sprintf("That raises the go line from %s to %s, gopar's. From %s on, the vet checks of go test also report\n"+
			"a printf-like call whose only argument is a non-constant format string (fmt.Printf(s): write fmt.Print(s)).\n", m.goLine, goparGo, goparGo)
	}
	return note
}

// goMod is what parvet reads of a go.mod file.
type goMod struct {
	goLine, toolchain string // the go line's version (1.24) and the toolchain line's (go1.27.3)
	gopar             bool   // the module is gopar, or requires it
}

// readGoMod reads the go.mod file modFile; ok is false if it cannot be read.
func readGoMod(modFile string) (m goMod, ok bool) {
	b, err := os.ReadFile(modFile)
	if err != nil {
		return m, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 2 && (fields[0] == "module" || fields[0] == "require") && fields[1] == goparModule,
			len(fields) >= 2 && fields[0] == goparModule:
			m.gopar = true
		case len(fields) == 2 && fields[0] == "go":
			m.goLine = fields[1]
		case len(fields) == 2 && fields[0] == "toolchain":
			m.toolchain = fields[1]
		}
	}
	return m, true
}

// moduleGo returns the go.mod file of the module that dir is in and the Go
// version it needs (its toolchain line, or else its go line, as a
// toolchain name such as go1.27.0), or "" where there is none.
func moduleGo(dir string) (modFile, want string) {
	for {
		modFile = filepath.Join(dir, "go.mod")
		if m, ok := readGoMod(modFile); ok {
			if m.goLine == "" {
				return modFile, ""
			}
			goLine := "go" + m.goLine
			if m.toolchain != "" && version.Compare(m.toolchain, goLine) >= 0 {
				return modFile, m.toolchain
			}
			if strings.Count(goLine, ".") == 1 && version.Compare(goLine, "go1.21") >= 0 {
				goLine += ".0" // go1.27 names the language; go1.27.0 its first release
			}
			return modFile, goLine
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		dir = parent
	}
}

// rerun runs parvet again with the arguments it was given, built by the
// toolchain want, and returns its exit status; where parvet does not know
// its own module version (built from a clone), it says how to build it
// with that toolchain instead.
func rerun(modFile, want string) int {
	bi, ok := debug.ReadBuildInfo()
	if os.Getenv("PARVET_RERUN") != "" || !ok || bi.Main.Sum == "" {
		// Built from source (a clone): no version that go run can fetch.
		fmt.Fprintf(os.Stderr, "parvet: %s needs %s, and this parvet was built with %s, whose type checker refuses code for a newer Go.\n"+
			"Build parvet with that toolchain (or a newer one), in gopar's parvet folder:\n\tGOTOOLCHAIN=%s go install ./cmd/parvet\n", modFile, want, runtime.Version(), want)
		return 1
	}
	cmd := exec.Command("go", append([]string{"run", bi.Path + "@" + bi.Main.Version}, os.Args[1:]...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+want, "PARVET_RERUN=1")
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "parvet: running parvet built with %s: %v\n", want, err)
		return 1
	}
	return 0
}
