// Command filehash hashes every file under a directory (by default the Go
// installation's src) twice: with the goroutine fan-out Go programs write by
// hand (a semaphore channel, a WaitGroup, a results slice and the first
// error), and with gopar's blocking mode in one line. It prints the digest
// of both, their times (each run twice, alternated; the second, with the
// file cache warm, is shown) and how many lines each version takes.
//
//	go run ./examples/filehash [-dir DIR] [-limit N]
package main

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/par"
)

//go:embed main.go
var source string

func main() {
	dir := flag.String("dir", "", "the directory to hash (default: the Go installation's src)")
	limit := flag.Int("limit", 16, "files read at once")
	flag.Parse()
	if *dir == "" {
		*dir = filepath.Join(goroot(), "src")
	}
	paths, err := files(*dir)
	if err != nil {
		log.Fatal(err)
	}

	// Twice each, alternated: the first pass fills the file cache, so the
	// second compares the two fan-outs rather than the disk.
	var a, b []string
	var tHand, tPar time.Duration
	for range 2 {
		start := time.Now()
		if a, err = handRolled(paths, *limit); err != nil {
			log.Fatal(err)
		}
		tHand = time.Since(start)
		start = time.Now()
		if b, err = withGopar(paths, *limit); err != nil {
			log.Fatal(err)
		}
		tPar = time.Since(start)
	}

	fmt.Printf("%d files under %s, at most %d read at once\n", len(paths), *dir, *limit)
	fmt.Printf("%-12s %-16s %10s %6s\n", "version", "digest", "time", "lines")
	fmt.Printf("%-12s %-16s %10v %6d\n", "hand-rolled", digest(a)[:16], tHand.Round(time.Millisecond), lines("handRolled"))
	fmt.Printf("%-12s %-16s %10v %6d\n", "gopar", digest(b)[:16], tPar.Round(time.Millisecond), lines("withGopar"))
	if digest(a) != digest(b) {
		log.Fatal("the two versions disagree")
	}
	fmt.Println("same result")
}

// BEGIN handRolled
func handRolled(paths []string, limit int) ([]string, error) {
	sums := make([]string, len(paths))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for i, p := range paths {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			s, err := hashFile(p)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				return
			}
			sums[i] = s
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return sums, nil
}

// END handRolled

// BEGIN withGopar
func withGopar(paths []string, limit int) ([]string, error) {
	return par.TryMap(par.Slice(paths).Blocking(limit), hashFile)
}

// END withGopar

// hashFile returns the SHA-256 of a file's contents, in hex.
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// files returns the regular files under dir, in walk order.
func files(dir string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return nil
	})
	if err == nil && len(paths) == 0 {
		err = errors.New("no files under " + dir)
	}
	return paths, err
}

// digest sums up a list of hashes, in order.
func digest(sums []string) string {
	h := sha256.New()
	for _, s := range sums {
		io.WriteString(h, s+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lines counts the lines of a function of this file, between its markers.
func lines(name string) int {
	_, rest, _ := strings.Cut(source, "// BEGIN "+name+"\n")
	body, _, _ := strings.Cut(rest, "\n// END "+name)
	return strings.Count(strings.TrimSpace(body), "\n") + 1
}

// goroot finds the Go installation: `go env GOROOT`, else the one this
// program was built with.
func goroot() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if r := strings.TrimSpace(string(out)); r != "" {
			return r
		}
	}
	return goruntime.GOROOT()
}
