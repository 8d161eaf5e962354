package par_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

// The words of every line of a text, counted in parallel: each participant
// finds the lines of its own part of data, so nothing scans the whole text
// first. Collect keeps the lines' order.
func ExampleLines() {
	data := []byte("the cat\r\nsat on the mat\n\nand slept")
	perLine := par.Map(par.Lines(data), func(line []byte) int { return len(bytes.Fields(line)) })
	fmt.Println(perLine.Collect(), par.Sum(perLine))
	// Output: [2 4 0 2] 8
}

func ExampleLinesString() {
	longest, _ := par.MaxFunc(par.LinesString("a\nabc\nab\n"), func(a, b string) int { return len(a) - len(b) })
	fmt.Println(longest)
	// Output: abc
}

// Records separated by a byte other than a newline, here NUL, as find
// -print0 writes file names.
func ExampleSplit() {
	names := par.Map(par.Split([]byte("a.go\x00b.txt\x00c.go\x00"), 0), func(b []byte) string { return string(b) })
	goFiles := names.Filter(func(n string) bool { return strings.HasSuffix(n, ".go") })
	fmt.Println(goFiles.Collect())
	// Output: [a.go c.go]
}

// The lines of a file, read in parallel with ReadAt. The read error, if
// any, is checked after the operation, as with bufio.Scanner's Err.
func ExampleReadLines() {
	name := filepath.Join(os.TempDir(), "gopar-readlines-example.txt")
	if err := os.WriteFile(name, []byte("one\ntwo three\nfour five six\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(name)

	f, err := os.Open(name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		fmt.Println(err)
		return
	}
	lines, readErr := par.ReadLines(f, info.Size())
	words := par.Sum(par.Map(lines, func(line []byte) int { return len(bytes.Fields(line)) }))
	if err := readErr(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(words)
	// Output: 6
}
