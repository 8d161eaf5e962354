package par

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// The record sources: Lines, LinesString, Split and ReadLines.
//
// The algorithm in a few words: cut the input into pieces of linePiece
// bytes; piece i owns the records that start in it. A record starts at
// offset p when p is 0 or the byte at p-1 is the separator, so a piece finds
// its first record by looking for a separator from the byte before its
// start, within the piece only, and ends with the record that runs past
// its end, which it follows up to the next separator. Every piece is one
// source index of a flat Spec, so the pool balances pieces as it does the
// items of a FlatMap, and no goroutine scans the input before the others
// start. A piece that holds no record start (inside a line longer than a
// piece) costs one scan of its own bytes.

// linePiece is the length of the pieces the record sources cut their input
// into: long enough that a piece's call and the search for its first record
// cost little beside scanning it (a 64 KiB bytes.IndexByte is a few
// microseconds), short enough that a 200 MB input gives thousands of
// pieces to balance. It is fixed, so which piece yields a record never
// depends on timing (ParlayLib's rule for block sizes).
const linePiece = 64 << 10

// lineMore is what ReadLines reads past a piece first to end its last
// line: a few lines of text, so that a piece reads little beyond its own
// bytes (6% more), and more only for a longer line.
const lineMore = 4 << 10

// pieces returns the number of pieces of piece bytes in an input of n
// bytes.
func pieces[N int | int64](n, piece N) N {
	k := n / piece
	if n%piece != 0 {
		k++
	}
	return k
}

// records calls yield with the records of data that start in piece i (the
// piece bytes from i*piece), in order, each without its separator (and
// without a "\r" before it where crlf is set), until yield returns false; it
// returns false if yield did. The last record of the piece may end past the
// piece; the last record of data ends at len(data), with or without a
// separator there. A record is a sub-slice of data with its capacity cut at
// its end.
func records(data []byte, sep byte, crlf bool, piece, i int, yield func([]byte) bool) bool {
	lo := i * piece
	end := lo + min(piece, len(data)-lo)
	if lo > 0 {
		// Does a record start in this piece? Only after a separator at
		// lo-1 or later, and before end-1.
		j := bytes.IndexByte(data[lo-1:end-1], sep)
		if j < 0 {
			return true // no: the piece is inside the record of an earlier one
		}
		lo += j
	}
	for lo < end {
		hi := len(data) // the final record, with no separator after it
		if j := bytes.IndexByte(data[lo:], sep); j >= 0 {
			hi = lo + j
		}
		next := hi + 1
		if crlf && hi > lo && data[hi-1] == '\r' {
			hi-- // as bufio.ScanLines drops it
		}
		if !yield(data[lo:hi:hi]) {
			return false
		}
		lo = next
	}
	return true
}

// dropCR returns hi less one if the record [lo, hi) of data ends in '\r',
// as bufio.ScanLines drops it.
func dropCR(data []byte, lo, hi int) int {
	if hi > lo && data[hi-1] == '\r' {
		return hi - 1
	}
	return hi
}

// Lines returns an iterator over the lines of data, in order, as
// bufio.ScanLines gives them: each line without its "\n" and without a
// "\r" just before it; a final line with no "\n" after it counts; an empty
// data has no lines, and "a\n" has one, "a".
//
// The lines are found in parallel, with no pass over data before the
// parallel work: data is cut into pieces of 64 KiB, and the participant
// that takes a piece moves its start to the first line start in it and
// yields the lines that start in the piece, the last one followed past the
// piece's end. The pieces depend on len(data) alone, never on timing, and
// the pool balances them as it balances the items of FlatMap. Every
// adapter and terminal operation
// applies: Map, Filter, Fold, Count, Collect (in order), Values, WithContext,
// Blocking, and so on. Len returns -1, as after FlatMap: Count runs the
// split.
//
// Each line is a sub-slice of data, with its capacity cut at its end so
// that an append to it never writes into data; it stays valid for as long
// as data is not modified, after the terminal operation too. data must not
// be modified while the operation runs.
//
//	words := par.Sum(par.Map(par.Lines(data), func(l []byte) int { return len(bytes.Fields(l)) }))
func Lines(data []byte) Iter[[]byte] { return splitRecords(data, '\n', true, linePiece) }

// splitRecords is Split, and Lines where crlf is set, with pieces of piece bytes.
func splitRecords(data []byte, sep byte, crlf bool, piece int) Iter[[]byte] {
	return Iter[[]byte]{pipe.FlatSource(0, pieces(len(data), piece), func(i int, yield func([]byte) bool) bool {
		return records(data, sep, crlf, piece, i, yield)
	})}
}

// LinesString is Lines over a string: the lines of s, in order, each a
// substring of s, with the same rules. A line shares s's memory, as a
// substring does.
func LinesString(s string) Iter[string] { return linesString(s, linePiece) }

// linesString is LinesString with pieces of piece bytes.
func linesString(s string, piece int) Iter[string] {
	// A view of s's bytes for the search: read, never written.
	data := unsafe.Slice(unsafe.StringData(s), len(s))
	return Iter[string]{pipe.FlatSource(0, pieces(len(s), piece), func(i int, yield func(string) bool) bool {
		return records(data, '\n', true, piece, i, func(line []byte) bool {
			// line is in s: the string of its bytes is a substring of s.
			return yield(unsafe.String(unsafe.SliceData(line), len(line)))
		})
	})}
}

// Split returns an iterator over the records of data separated by sep, in
// order, found in parallel as Lines finds lines: each record without its
// separator, a final record with no separator after it counted, an empty
// data with no records. So Split([]byte("a,,b,"), ',') gives "a", "" and
// "b". No "\r" is dropped: Lines is Split on '\n' that also drops a "\r"
// before the "\n".
//
// Each record is a sub-slice of data with its capacity cut at its end; it
// stays valid for as long as data is not modified. data must not be
// modified while the operation runs.
func Split(data []byte, sep byte) Iter[[]byte] { return splitRecords(data, sep, false, linePiece) }

// ReadLines returns an iterator over the lines of the first size bytes of
// r, with the rules of Lines, and a function err that reports a failed
// read. The participants read the pieces with r.ReadAt in parallel, each
// its own byte range and then up to the end of its last line, so r must
// allow concurrent ReadAt calls (an *os.File and a *bytes.Reader do). Each
// line points into a buffer of its piece's own, which nothing reuses: a
// line stays valid after the operation, and may be kept.
//
// As with bufio.Scanner's Err, check err (or lines.Err, the same) after
// an operation that returns no error:
//
//	lines, readErr := par.ReadLines(f, size)
//	n := lines.Count()
//	if err := readErr(); err != nil {
//		return err
//	}
//
// err returns nil while every read has succeeded. Once a read fails, the
// pieces not yet read yield no lines, the operation returns promptly with a
// result that misses lines (discard it), and err returns that error from
// then on, wrapped with the offset it was read at; the iterator yields no
// more lines, in this operation or a later one. The operations that return
// an error (the Try forms, ForEachErr, MapErr, Results) return it, as over
// FromWalk. Where several reads fail at once, err returns the first
// recorded. An r that holds fewer than size bytes is such a failure, with
// io.ErrUnexpectedEOF. ReadLines panics if size is negative.
func ReadLines(r io.ReaderAt, size int64) (lines Iter[[]byte], err func() error) {
	return readLines(r, size, linePiece)
}

// readLines is ReadLines with pieces of piece bytes.
func readLines(r io.ReaderAt, size int64, piece int) (lines Iter[[]byte], err func() error) {
	if size < 0 {
		panic(fmt.Sprintf("gopar: par.ReadLines was given size %d; it must be at least 0", size))
	}
	if r == nil {
		panic("gopar: par.ReadLines was given a nil io.ReaderAt")
	}
	failed := newSourceFailure() // the first read error, kept once set
	read := func(i int, yield func([]byte) bool) bool {
		if failed.Err() != nil {
			return true // a read has failed: no more lines
		}
		all, err := readPiece(r, size, int64(i)*int64(piece), int64(piece), yield)
		if err != nil {
			failed.fail(err)
		}
		return all
	}
	lines = Iter[[]byte]{pipe.FlatSource(0, int(pieces(size, int64(piece))), read)}
	lines.s.Failure = failed
	return lines, failed.Err
}

// readPiece reads the piece of r that starts at off, of piece bytes, and
// yields its lines, as records does over a []byte: the bytes
// [off-1, off+piece) first, then more until its last line ends or size is
// reached. It returns false if yield did, true otherwise (a read error
// included), and the read error.
func readPiece(r io.ReaderAt, size, off, piece int64, yield func([]byte) bool) (bool, error) {
	base := max(off-1, 0) // buf[k] is the byte at base+k
	end := off + min(piece, size-off)
	// Room for the first read past the piece, which the last line of
	// every piece but the last one needs.
	first := min(lineMore, piece) // lineMore, less for the short pieces of the tests
	buf := make([]byte, end-base, end-base+first)
	if err := readFull(r, buf, base); err != nil {
		return true, err
	}
	lo := 0
	if off > 0 {
		// Does a line start in this piece? As in records.
		j := bytes.IndexByte(buf[:len(buf)-1], '\n')
		if j < 0 {
			return true, nil
		}
		lo = j + 1
	}
	pieceEnd := len(buf) // lines that start before it are this piece's
	for lo < pieceEnd {
		j := bytes.IndexByte(buf[lo:], '\n')
		for j < 0 && base+int64(len(buf)) < size {
			// The line runs past what is read: read first bytes
			// more, then as much again as read past the piece each
			// time, so that a line of n bytes costs O(n).
			at := base + int64(len(buf))
			more := min(max(int64(len(buf)-pieceEnd), first), size-at)
			from := len(buf)
			buf = grow(buf, int(more))
			if err := readFull(r, buf[from:], at); err != nil {
				return true, err
			}
			if k := bytes.IndexByte(buf[from:], '\n'); k >= 0 {
				j = from + k - lo
			}
		}
		hi := len(buf) // the final line of r, with no "\n" after it
		if j >= 0 {
			hi = lo + j
		}
		if e := dropCR(buf, lo, hi); !yield(buf[lo:e:e]) {
			return false, nil
		}
		lo = hi + 1
	}
	return true, nil
}

// grow returns buf extended by n bytes, reallocated if its capacity is
// short.
func grow(buf []byte, n int) []byte {
	if cap(buf)-len(buf) < n {
		bigger := make([]byte, len(buf), len(buf)+n)
		copy(bigger, buf)
		buf = bigger
	}
	return buf[:len(buf)+n]
}

// readFull fills buf from r at offset off, with the error wrapped to say
// where. A short read at the end of r is io.ErrUnexpectedEOF: r holds
// fewer bytes than the size ReadLines was given.
func readFull(r io.ReaderAt, buf []byte, off int64) error {
	n, err := r.ReadAt(buf, off)
	if n == len(buf) {
		return nil // io.ReaderAt may return io.EOF with a full read at the end
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("gopar: par.ReadLines: reading %d bytes at offset %d: %w", len(buf), off, err)
}
