// Package spill keeps the part of a keyed result that passes its memory
// budget on disk: runs of entries in key order, written to files of one
// directory, and merged back in key order, so that a result larger than
// memory is still read whole, one entry at a time (par's Sorted).
//
// Each file is a run: the entries of one accumulator at the moment it
// passed its share of the budget, sorted by key, each key once. Merging k
// runs holds one entry and one read buffer per run; past fanIn runs, they
// are first merged into fewer, longer runs. The directory is the
// operation's own, made on its first run, and Close removes it with all
// that is in it.
package spill

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Entry is a key and its value.
type Entry[K cmp.Ordered, V any] struct {
	Key   K
	Value V
}

// bufSize is the size of a run's read and write buffers.
const bufSize = 64 << 10

// Dir is where one operation spills: a directory of its own under parent
// (os.TempDir() if empty), made when the first run is written and removed
// by Close, and a cap on the bytes written there (none if max is 0).
type Dir struct {
	parent string
	max    int64

	mu      sync.Mutex // guards path
	path    string
	files   atomic.Int64
	written atomic.Int64
}

// NewDir returns the Dir of an operation: nothing is made until a run is
// written.
func NewDir(parent string, max int64) *Dir {
	if parent == "" {
		parent = os.TempDir()
	}
	return &Dir{parent: parent, max: max}
}

// CapError is the error of a run that would pass the cap on the bytes a
// Dir may hold.
type CapError struct {
	Cap int64 // the cap, in bytes
}

func (e *CapError) Error() string {
	return fmt.Sprintf("spill: the runs would pass the cap of %d bytes on disk", e.Cap)
}

// Written returns the bytes written to d's files so far, removed or not.
func (d *Dir) Written() int64 { return d.written.Load() }

// Files returns the number of files made in d so far, removed or not.
func (d *Dir) Files() int { return int(d.files.Load()) }

// Path returns d's directory, or "" if no run has been written.
func (d *Dir) Path() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.path
}

// Close removes d's directory and everything in it. It must not run
// while a run is written or read.
func (d *Dir) Close() error {
	if p := d.Path(); p != "" {
		return os.RemoveAll(p)
	}
	return nil
}

// create makes a new file in d's directory, making the directory first.
func (d *Dir) create() (*os.File, error) {
	d.mu.Lock()
	if d.path == "" {
		p, err := os.MkdirTemp(d.parent, "gopar-spill-")
		if err != nil {
			d.mu.Unlock()
			return nil, err
		}
		d.path = p
	}
	dir := d.path
	d.mu.Unlock()
	return os.Create(filepath.Join(dir, fmt.Sprintf("run-%d", d.files.Add(1))))
}

// capped is the io.Writer of a run's file: it counts the bytes against
// the cap.
type capped struct {
	f *os.File
	d *Dir
}

func (c capped) Write(p []byte) (int, error) {
	if n := c.d.written.Add(int64(len(p))); c.d.max > 0 && n > c.d.max {
		return 0, &CapError{Cap: c.d.max}
	}
	return c.f.Write(p)
}

// Run is a file of entries in key order.
type Run[K cmp.Ordered, V any] struct {
	path string
	n    int // entries
	f    Format[K, V]
}

// Len returns the number of entries in r.
func (r *Run[K, V]) Len() int { return r.n }

// Write writes entries, which are in key order, to a new run in d, in
// format f.
func Write[K cmp.Ordered, V any](d *Dir, f Format[K, V], entries []Entry[K, V]) (*Run[K, V], error) {
	return write(d, f, func(put func(K, V) bool) error {
		for _, e := range entries {
			put(e.Key, e.Value)
		}
		return nil
	})
}

// write writes the entries that fill gives to put, which are in key
// order, to a new run in d, in format ft. put returns false once a write
// has failed.
func write[K cmp.Ordered, V any](d *Dir, ft Format[K, V], fill func(put func(K, V) bool) error) (*Run[K, V], error) {
	f, err := d.create()
	if err != nil {
		return nil, err
	}
	r := &Run[K, V]{path: f.Name(), f: ft}
	bw := bufio.NewWriterSize(capped{f, d}, bufSize)
	ew := newEntryWriter(bw, ft)
	var werr error
	err = fill(func(k K, v V) bool {
		if werr = ew.write(k, v); werr != nil {
			return false
		}
		r.n++
		return true
	})
	err = errors.Join(err, werr)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(r.path)
		return nil, err
	}
	return r, nil
}

// Merge gives yield the entries of runs and of mems, each in key order,
// in key order, each key once with the values of its entries combined
// (keys are equal as == says: a float NaN is never equal to another),
// holding at most fanIn runs open: more are first merged into fewer.
// Each run's file is removed once it has been read. It stops early, with
// nil, if yield returns false.
func Merge[K cmp.Ordered, V any](d *Dir, runs []*Run[K, V], mems [][]Entry[K, V], combine func(V, V) V, fanIn int, yield func(K, V) bool) error {
	fanIn = max(fanIn, 2)
	for len(runs)+len(mems) > fanIn && len(runs) > 1 {
		n := min(fanIn, len(runs))
		group := runs[:n]
		r, err := write(d, group[0].f, func(put func(K, V) bool) error {
			return merge(group, nil, combine, put)
		})
		if err != nil {
			return err
		}
		runs = append(runs[n:], r)
	}
	return merge(runs, mems, combine, yield)
}

// cursor is the next entry of a run or of a slice in memory.
type cursor[K cmp.Ordered, V any] struct {
	k   K
	v   V
	mem []Entry[K, V]
	rd  *entryReader[K, V]
}

// next moves c to its next entry and reports whether there was one.
func (c *cursor[K, V]) next() (bool, error) {
	if c.rd == nil {
		if len(c.mem) == 0 {
			return false, nil
		}
		c.k, c.v, c.mem = c.mem[0].Key, c.mem[0].Value, c.mem[1:]
		return true, nil
	}
	k, v, err := c.rd.read()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	c.k, c.v = k, v
	return true, nil
}

// merge is Merge over at most fanIn runs.
func merge[K cmp.Ordered, V any](runs []*Run[K, V], mems [][]Entry[K, V], combine func(V, V) V, yield func(K, V) bool) (err error) {
	var h []*cursor[K, V]
	defer func() {
		for _, r := range runs {
			_ = os.Remove(r.path)
		}
	}()
	for _, r := range runs {
		f, err := os.Open(r.path)
		if err != nil {
			return err
		}
		defer f.Close()
		c := &cursor[K, V]{rd: newEntryReader(bufio.NewReaderSize(f, bufSize), r.f)}
		if ok, err := c.next(); err != nil {
			return err
		} else if ok {
			h = append(h, c)
		}
	}
	for _, m := range mems {
		c := &cursor[K, V]{mem: m}
		if ok, _ := c.next(); ok {
			h = append(h, c)
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(h, i)
	}
	for len(h) > 0 {
		k, v := h[0].k, h[0].v
		for {
			if err := pop(&h); err != nil {
				return err
			}
			if len(h) == 0 || h[0].k != k {
				break
			}
			v = combine(v, h[0].v)
		}
		if !yield(k, v) {
			return nil
		}
	}
	return nil
}

// pop moves the cursor at the top of the heap h to its next entry,
// dropping it if it has none.
func pop[K cmp.Ordered, V any](h *[]*cursor[K, V]) error {
	ok, err := (*h)[0].next()
	if err != nil {
		return err
	}
	if !ok {
		last := len(*h) - 1
		(*h)[0] = (*h)[last]
		*h = (*h)[:last]
	}
	if len(*h) > 0 {
		down(*h, 0)
	}
	return nil
}

// down restores the heap order below i.
func down[K cmp.Ordered, V any](h []*cursor[K, V], i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && cmp.Less(h[r].k, h[l].k) {
			m = r
		}
		if !cmp.Less(h[m].k, h[i].k) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// Parent returns the directory under which d makes its own.
func (d *Dir) Parent() string { return d.parent }
