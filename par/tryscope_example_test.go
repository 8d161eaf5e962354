package par_test

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sync/atomic"
	"testing/fstest"

	"github.com/gopar-dev/gopar/par"
)

// A walk of a directory tree, at most 4 directories or files at once: each
// directory is a task that starts a task per entry, and the first error
// cancels the rest.
func ExampleTryScope() {
	fsys := fstest.MapFS{
		"a/x.txt":   {Data: []byte("hello")},
		"a/b/y.txt": {Data: []byte("parallel")},
		"a/b/c/z":   {Data: []byte("world")},
		"d/w.txt":   {Data: []byte("!")},
	}
	var files, bytes atomic.Int64
	var dir func(name string) func(context.Context, *par.TryGroup) error
	dir = func(name string) func(context.Context, *par.TryGroup) error {
		return func(ctx context.Context, g *par.TryGroup) error {
			entries, err := fs.ReadDir(fsys, name)
			for _, e := range entries {
				p := path.Join(name, e.Name())
				if e.IsDir() {
					g.Go(dir(p))
					continue
				}
				g.Go(func(ctx context.Context, _ *par.TryGroup) error {
					data, err := fs.ReadFile(fsys, p)
					files.Add(1)
					bytes.Add(int64(len(data)))
					return err
				})
			}
			return err
		}
	}
	err := par.TryScope(context.Background(), 4, func(ctx context.Context, g *par.TryGroup) error {
		g.Go(dir("."))
		return nil
	})
	fmt.Println(files.Load(), "files,", bytes.Load(), "bytes, error:", err)
	// Output: 4 files, 19 bytes, error: <nil>
}

// The same walk, gathering each file's size: the results come in the
// order of a walk on one goroutine (each directory's entries in order),
// whatever the schedule, with no mutex.
func ExampleTryScopeCollect() {
	fsys := fstest.MapFS{
		"a/x.txt":   {Data: []byte("hello")},
		"a/b/y.txt": {Data: []byte("parallel")},
		"a/b/c/z":   {Data: []byte("world")},
		"d/w.txt":   {Data: []byte("!")},
	}
	type file struct {
		name string
		size int
	}
	var dir func(name string) func(context.Context, *par.CollectGroup[file]) error
	dir = func(name string) func(context.Context, *par.CollectGroup[file]) error {
		return func(ctx context.Context, g *par.CollectGroup[file]) error {
			entries, err := fs.ReadDir(fsys, name)
			for _, e := range entries {
				p := path.Join(name, e.Name())
				if e.IsDir() {
					g.Go(dir(p))
					continue
				}
				g.Go(func(ctx context.Context, g *par.CollectGroup[file]) error {
					data, err := fs.ReadFile(fsys, p)
					g.Emit(file{p, len(data)})
					return err
				})
			}
			return err
		}
	}
	files, err := par.TryScopeCollect(context.Background(), 4, func(ctx context.Context, g *par.CollectGroup[file]) error {
		g.Go(dir("."))
		return nil
	})
	fmt.Println(files, err)
	// Output: [{a/b/c/z 5} {a/b/y.txt 8} {a/x.txt 5} {d/w.txt 1}] <nil>
}
