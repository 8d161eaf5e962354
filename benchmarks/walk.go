package benchmarks

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"io/fs"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gopar-dev/gopar/par"
	"golang.org/x/sync/errgroup"
)

func init() { Streams = append(Streams, S5) }

// S5: a directory walk of the Go source tree that hashes every file, at
// most walkLimit files open at once: the recursive I/O fan-out.
const walkLimit = 16

// walkRoot is the tree S5 walks: GOROOT/src.
var walkRoot = sync.OnceValue(func() string {
	root := runtime.GOROOT()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root = strings.TrimSpace(string(out))
	}
	return filepath.Join(root, "src")
})

// hashFile returns the first 8 bytes of the SHA-256 of the file at path.
func hashFile(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(h.Sum(nil)), nil
}

// walkFiles is the regular files under root, in WalkDir's order.
func walkFiles(root string) iter.Seq[string] {
	return func(yield func(string) bool) {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if !yield(path) {
				return filepath.SkipAll
			}
			return nil
		})
	}
}

// must panics on err: the workload's tree is readable.
func must(h uint64, err error) uint64 {
	if err != nil {
		panic(err)
	}
	return h
}

var S5 = &Workload{
	ID:   "S5",
	Name: "walk-hash",
	What: "walk of GOROOT/src hashing every file (SHA-256), at most 16 at once",
	Impls: []Impl{
		{"seq", func() uint64 {
			var s uint64
			for path := range walkFiles(walkRoot()) {
				s += must(hashFile(path))
			}
			return s
		}},
		// The hand-written form: WalkDir on the caller, a goroutine per
		// file through an errgroup with SetLimit(16).
		{"errgroup", func() uint64 {
			var s atomic.Uint64
			var g errgroup.Group
			g.SetLimit(walkLimit)
			for path := range walkFiles(walkRoot()) {
				g.Go(func() error {
					h, err := hashFile(path)
					s.Add(h)
					return err
				})
			}
			if err := g.Wait(); err != nil {
				panic(err)
			}
			return s.Load()
		}},
		// The recursive walk: a task per directory and per file.
		{"gopar", func() uint64 {
			var s atomic.Uint64
			var dirTask func(dir string) func(context.Context, *par.TryGroup) error
			dirTask = func(dir string) func(context.Context, *par.TryGroup) error {
				return func(ctx context.Context, g *par.TryGroup) error {
					entries, err := os.ReadDir(dir)
					for _, e := range entries {
						path := filepath.Join(dir, e.Name())
						switch {
						case e.IsDir():
							g.Go(dirTask(path))
						case e.Type().IsRegular():
							g.Go(func(context.Context, *par.TryGroup) error {
								h, err := hashFile(path)
								s.Add(h)
								return err
							})
						}
					}
					return err
				}
			}
			err := par.TryScope(context.Background(), walkLimit, func(ctx context.Context, g *par.TryGroup) error {
				g.Go(dirTask(walkRoot()))
				return nil
			})
			if err != nil {
				panic(err)
			}
			return s.Load()
		}},
		// The walk as a sequence, the files hashed at most 16 at once.
		{"gopar-seq", func() uint64 {
			var s atomic.Uint64
			err := par.FromSeq(walkFiles(walkRoot())).Blocking(walkLimit).TryForEach(func(path string) error {
				h, err := hashFile(path)
				s.Add(h)
				return err
			})
			if err != nil {
				panic(err)
			}
			return s.Load()
		}},
	},
	Targets: []Target{{Impl: "gopar", Against: "errgroup", Limit: 1.05}},
}
