package par_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// scanRecords is the reference: the records of data as a bufio.Scanner
// gives them, split with split, with a buffer large enough for any line.
func scanRecords(data []byte, split bufio.SplitFunc) []string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), len(data)+4096)
	sc.Split(split)
	var out []string
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		panic(err)
	}
	return out
}

// scanSep is bufio.ScanLines for the separator sep, with no "\r" rule.
func scanSep(sep byte) bufio.SplitFunc {
	return func(data []byte, atEOF bool) (int, []byte, error) {
		if atEOF && len(data) == 0 {
			return 0, nil, nil
		}
		if i := bytes.IndexByte(data, sep); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF {
			return len(data), data, nil
		}
		return 0, nil, nil
	}
}

// lineInputs returns the inputs of the tests: the edge cases by name, then
// random texts of every shape around the piece length (fewer under the race
// detector).
func lineInputs() map[string][]byte {
	p := par.LinePiece
	in := map[string][]byte{
		"empty":              {},
		"newline":            []byte("\n"),
		"one line":           []byte("a\n"),
		"no final newline":   []byte("a\nbc"),
		"crlf":               []byte("a\r\nb\r\n\r\nc\r"),
		"lone cr":            []byte("a\rb\n\r"),
		"empty lines":        []byte("\n\n\na\n\n"),
		"only newlines":      bytes.Repeat([]byte("\n"), 3*p+7),
		"one huge line":      bytes.Repeat([]byte("x"), 5*p+3),
		"huge line, newline": append(bytes.Repeat([]byte("x"), 3*p), '\n'),
		"piece, boundary nl": append(bytes.Repeat([]byte("y"), p-1), '\n'),
		"piece and one":      append(append(bytes.Repeat([]byte("y"), p-1), '\n'), 'z'),
		"nl after boundary":  append(bytes.Repeat([]byte("y"), p), '\n'),
		"cr at boundary":     append(append(bytes.Repeat([]byte("y"), p-1), '\r'), '\n', 'w'),
	}
	// A newline just before, at and just after every boundary.
	b := bytes.Repeat([]byte("abc "), 4*p/4)
	for k := 1; k < 4; k++ {
		b[k*p-2+k-1] = '\n'
	}
	in["newlines near boundaries"] = b
	r := rand.New(rand.NewPCG(38, 7))
	for k := range max(2, long.Pick(12, 4)/race.Scale) {
		in[fmt.Sprintf("random %d", k)] = randomText(r, r.IntN(4*p+100))
	}
	return in
}

// randomText returns n bytes of lines of random lengths, from empty lines to
// lines longer than a piece, some ending in "\r\n".
func randomText(r *rand.Rand, n int) []byte {
	out := make([]byte, 0, n)
	for len(out) < n {
		var l int
		switch r.IntN(10) {
		case 0:
			l = 0
		case 1:
			l = r.IntN(2 * par.LinePiece)
		default:
			l = r.IntN(120)
		}
		for range min(l, n-len(out)) {
			out = append(out, " abcr"[r.IntN(5)])
		}
		if r.IntN(8) == 0 {
			out = append(out, '\r')
		}
		out = append(out, '\n')
	}
	return out[:n]
}

// strs returns the records as strings.
func strs[S ~[]byte | ~string](xs []S) []string {
	out := make([]string, len(xs))
	for k, x := range xs {
		out[k] = string(x)
	}
	return out
}

// TestLinesScanner checks Lines, LinesString and Split against a
// bufio.Scanner on every input and pool: the records in order (Collect),
// their number (Count), and every record yielded exactly once, at the
// place in data where the scanner finds it (ForEach).
func TestLinesScanner(t *testing.T) {
	pools := map[int]*par.Pool{}
	for _, workers := range []int{1, 2, 3, 8} {
		pools[workers] = newPool(t, workers)
	}
	seps := []byte{'\n', ' ', 'r'}
	for name, data := range lineInputs() {
		want := scanRecords(data, bufio.ScanLines)
		wantSplit := map[byte][]string{}
		for _, sep := range seps {
			wantSplit[sep] = scanRecords(data, scanSep(sep))
		}
		for workers, pool := range pools {
			t.Run(fmt.Sprintf("%s/%d", name, workers), func(t *testing.T) {
				lines := par.Lines(data).WithPool(pool)
				if got := strs(lines.Collect()); !slices.Equal(got, want) {
					t.Fatalf("Lines: %d lines, the scanner %d; first difference at %d", len(got), len(want), firstDiff(got, want))
				}
				if got := lines.Count(); got != len(want) {
					t.Fatalf("Lines.Count = %d, the scanner %d", got, len(want))
				}
				checkOnce(t, data, lines, len(want))
				if got := strs(par.LinesString(string(data)).WithPool(pool).Collect()); !slices.Equal(got, want) {
					t.Fatalf("LinesString: %d lines, the scanner %d; first difference at %d", len(got), len(want), firstDiff(got, want))
				}
				for _, sep := range seps {
					want := wantSplit[sep]
					if got := strs(par.Split(data, sep).WithPool(pool).Collect()); !slices.Equal(got, want) {
						t.Fatalf("Split(%q): %d records, the scanner %d; first difference at %d", sep, len(got), len(want), firstDiff(got, want))
					}
				}
			})
		}
	}
}

// TestLinesSmallPieces is TestLinesScanner with pieces of a few bytes, so
// that most lines cross piece boundaries and many pieces start inside a
// line, ReadLines's reads past a piece included.
func TestLinesSmallPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, workers := range []int{1, 2, 8} {
		pool := newPool(t, workers)
		for k := range max(2, 8/race.Scale) {
			data := randomText(r, r.IntN(6000))
			want := scanRecords(data, bufio.ScanLines)
			for _, piece := range []int{1, 2, 3, 5, 17, 100, 1000} {
				if got := strs(par.LinesPiece(data, piece).WithPool(pool).Collect()); !slices.Equal(got, want) {
					t.Fatalf("%d workers, text %d, pieces of %d: %d lines, the scanner %d; first difference at %d",
						workers, k, piece, len(got), len(want), firstDiff(got, want))
				}
				lines, readErr := par.ReadLinesPiece(bytes.NewReader(data), int64(len(data)), piece)
				got := strs(lines.WithPool(pool).Collect())
				if err := readErr(); err != nil || !slices.Equal(got, want) {
					t.Fatalf("%d workers, text %d, pieces of %d: ReadLines %d lines (err %v), the scanner %d",
						workers, k, piece, len(got), err, len(want))
				}
			}
		}
	}
}

// firstDiff returns the first index where a and b differ.
func firstDiff(a, b []string) int {
	for k := range min(len(a), len(b)) {
		if a[k] != b[k] {
			return k
		}
	}
	return min(len(a), len(b))
}

// checkOnce runs ForEach on lines, which are Lines(data), and checks that
// every line is yielded once: each line's offset in data is marked, and the
// marks must be the line starts, n of them, each marked once.
func checkOnce(t *testing.T, data []byte, lines par.Iter[[]byte], n int) {
	t.Helper()
	marks := make([]atomic.Int32, len(data)+1)
	lines.ForEach(func(l []byte) {
		off := len(data) // an empty line at the end has no byte of its own
		if len(l) > 0 {
			off = int(uintptr(unsafe.Pointer(unsafe.SliceData(l))) - uintptr(unsafe.Pointer(unsafe.SliceData(data))))
		}
		if len(l) > 0 && cap(l) != len(l) {
			t.Errorf("line at %d has capacity %d past its length %d", off, cap(l), len(l))
		}
		marks[off].Add(1)
	})
	seen := 0
	for off := range data {
		if c := marks[off].Load(); c != 0 {
			if c > 1 {
				t.Fatalf("the line at offset %d ran %d times", off, c)
			}
			if off > 0 && data[off-1] != '\n' {
				t.Fatalf("a line at offset %d, which follows %q", off, data[off-1])
			}
			seen++
		}
	}
	// Empty lines are marked at len(data): only their number is checked.
	if got := seen + int(marks[len(data)].Load()); got != n {
		t.Fatalf("ForEach saw %d lines, the scanner %d", got, n)
	}
}

// TestLinesAdapters runs the usual operations over Lines: word counts with
// Map and Sum, Fold, Filter, FindFirst, Values in order, and a context.
func TestLinesAdapters(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	data := randomText(r, 6*par.LinePiece+11)
	want := scanRecords(data, bufio.ScanLines)
	wantWords := 0
	for _, l := range want {
		wantWords += len(strings.Fields(l))
	}
	pool := newPool(t, 3)
	onePool := newPool(t, 1)
	lines := par.Lines(data).WithPool(pool)
	words := func(l []byte) int { return len(bytes.Fields(l)) }
	if got := par.Sum(par.Map(lines, words)); got != wantWords {
		t.Errorf("Sum of words = %d, want %d", got, wantWords)
	}
	if got := par.Fold(lines, func() int { return 0 }, func(a int, l []byte) int { return a + words(l) }, func(a, b int) int { return a + b }); got != wantWords {
		t.Errorf("Fold of words = %d, want %d", got, wantWords)
	}
	var nonEmpty []string
	for _, l := range want {
		if l != "" {
			nonEmpty = append(nonEmpty, l)
		}
	}
	if got := strs(lines.Filter(func(l []byte) bool { return len(l) > 0 }).Collect()); !slices.Equal(got, nonEmpty) {
		t.Errorf("Filter: %d lines, want %d", len(got), len(nonEmpty))
	}
	if len(want) > 50 {
		target := want[len(want)-7]
		got, ok := lines.FindFirst(func(l []byte) bool { return string(l) == target })
		if !ok || string(got) != target {
			t.Errorf("FindFirst = %q, %v; want %q", got, ok, target)
		}
	}
	var streamed []string
	for l := range lines.Values() {
		streamed = append(streamed, string(l))
	}
	if !slices.Equal(streamed, want) {
		t.Errorf("Values: %d lines in an order other than the scanner's %d", len(streamed), len(want))
	}
	var blocked atomic.Int64
	lines.Blocking(4).ForEach(func([]byte) { blocked.Add(1) })
	if got := int(blocked.Load()); got != len(want) {
		t.Errorf("Blocking(4).ForEach ran %d calls for %d lines", got, len(want))
	}
	// TryForEach returns the error of the lowest line that fails among the
	// calls that ran: every line with a word fails here. Which lines ran
	// depends on timing where the pool has more than one worker; on one
	// worker the first such line's error comes, as from a plain loop.
	firstWord := slices.IndexFunc(want, func(l string) bool { return strings.TrimSpace(l) != "" })
	var failed sync.Map // the lines whose calls failed
	fail := func(l []byte) error {
		if len(bytes.Fields(l)) > 0 {
			failed.Store(string(l), true)
			return fmt.Errorf("line %q", l)
		}
		return nil
	}
	err := lines.TryForEach(fail)
	if err == nil {
		t.Errorf("TryForEach = nil, want the error of a line with a word")
	} else if lowest := lowestFailed(want, &failed); err.Error() != fmt.Sprintf("line %q", lowest) {
		t.Errorf("TryForEach = %v, want the lowest failing line's among those that ran, %q", err, lowest)
	}
	err = lines.WithPool(onePool).TryForEach(fail)
	if wantErr := fmt.Sprintf("line %q", want[firstWord]); err == nil || err.Error() != wantErr {
		t.Errorf("TryForEach on one worker = %v, want %s", err, wantErr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := lines.WithContext(ctx).Count(); got != 0 {
		t.Errorf("Count with a done context = %d, want 0", got)
	}
	// A break stops the piece in the middle: the lines before it come, in
	// order.
	k := 0
	for l := range lines.Values() {
		if string(l) != want[k] {
			t.Fatalf("Values line %d = %q, want %q", k, l, want[k])
		}
		if k++; k == 3 {
			break
		}
	}
}

// TestReadLines checks ReadLines against the scanner on every input, with a
// *bytes.Reader as the io.ReaderAt, and that its lines stay valid after the
// operation even when the reader's bytes change.
func TestReadLines(t *testing.T) {
	pool := newPool(t, 3)
	for name, data := range lineInputs() {
		t.Run(name, func(t *testing.T) {
			want := scanRecords(data, bufio.ScanLines)
			src := slices.Clone(data)
			lines, readErr := par.ReadLines(bytes.NewReader(src), int64(len(src)))
			got := lines.WithPool(pool).Collect()
			if err := readErr(); err != nil {
				t.Fatal(err)
			}
			clear(src) // the lines are in buffers of their own
			if got := strs(got); !slices.Equal(got, want) {
				t.Fatalf("%d lines, the scanner %d; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
			for _, l := range got {
				if cap(l) != len(l) {
					t.Fatalf("a line has capacity %d past its length %d", cap(l), len(l))
				}
			}
		})
	}
}

// failingReader fails every read that reaches byte bad.
type failingReader struct {
	r     io.ReaderAt
	bad   int64
	reads atomic.Int64
}

var errDisk = errors.New("disk on fire")

func (f *failingReader) ReadAt(p []byte, off int64) (int, error) {
	f.reads.Add(1)
	if off <= f.bad && f.bad < off+int64(len(p)) {
		n, _ := f.r.ReadAt(p[:f.bad-off], off)
		return n, errDisk
	}
	return f.r.ReadAt(p, off)
}

// TestReadLinesError checks that a failed read is reported by err, wrapped
// with its offset, that it stays reported, and that the pieces not yet
// read then yield nothing; and that a reader shorter than size is
// io.ErrUnexpectedEOF.
func TestReadLinesError(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	data := randomText(r, 40*par.LinePiece)
	for _, workers := range []int{1, 2, 8} {
		pool := newPool(t, workers)
		for _, bad := range []int64{0, 5, int64(par.LinePiece), int64(20*par.LinePiece + 3), int64(len(data) - 1)} {
			fr := &failingReader{r: bytes.NewReader(data), bad: bad}
			lines, readErr := par.ReadLines(fr, int64(len(data)))
			if err := readErr(); err != nil {
				t.Fatalf("err before any operation: %v", err)
			}
			n := lines.WithPool(pool).Count()
			err := readErr()
			if !errors.Is(err, errDisk) {
				t.Fatalf("%d workers, byte %d fails: err = %v, want errDisk wrapped", workers, bad, err)
			}
			if !strings.Contains(err.Error(), "offset") {
				t.Errorf("err %q does not say the offset", err)
			}
			if all := len(scanRecords(data, bufio.ScanLines)); n >= all {
				t.Errorf("Count = %d after a failed read, of %d lines", n, all)
			}
			if workers == 1 && bad == 0 {
				// One participant, the first piece failing: every later
				// piece is skipped without a read.
				if reads := fr.reads.Load(); reads != 1 {
					t.Errorf("%d reads after the first piece failed, want 1", reads)
				}
			}
			if n := lines.WithPool(pool).Count(); n != 0 || !errors.Is(readErr(), errDisk) {
				t.Errorf("a second Count after the failure = %d, err %v; want 0 and the same error", n, readErr())
			}
		}
	}
	short := []byte("a\nb\nc")
	lines, readErr := par.ReadLines(bytes.NewReader(short), int64(len(short))+10)
	lines.Count()
	if err := readErr(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a reader shorter than size: err = %v, want io.ErrUnexpectedEOF", err)
	}
	if lines, readErr := par.ReadLines(bytes.NewReader(nil), 0); lines.Count() != 0 || readErr() != nil {
		t.Errorf("ReadLines of nothing: a line or an error")
	}
}

// TestLinesPanic checks that a panic in a callback over Lines reaches the
// caller as a *par.Panic.
func TestLinesPanic(t *testing.T) {
	data := bytes.Repeat([]byte("word word\n"), 3*par.LinePiece/10)
	defer func() {
		var p *par.Panic
		if v := recover(); v == nil {
			t.Fatal("no panic")
		} else if err, ok := v.(error); !ok || !errors.As(err, &p) {
			t.Fatalf("panic %v (%T), want a *par.Panic", v, v)
		}
	}()
	var n atomic.Int64
	par.Lines(data).ForEach(func(l []byte) {
		if n.Add(1) == 2*par.LinePiece/10 {
			panic("stop")
		}
	})
}

// FuzzLines compares Lines, LinesString, Split and ReadLines with a
// bufio.Scanner on data, with pieces of a few bytes so that short inputs
// cross many piece boundaries, on a pool of three workers.
func FuzzLines(f *testing.F) {
	for _, seed := range []string{"", "\n", "a\n", "a\nbc", "a\r\nb\r\n\r\nc\r", "\r", "\n\n\r\n", "ab\rcd\r\r\n", "xxxxxxxx\nx"} {
		f.Add([]byte(seed))
	}
	pool := newPool(f, 3)
	f.Fuzz(func(t *testing.T, data []byte) {
		want := scanRecords(data, bufio.ScanLines)
		var wantSplit []string
		if len(data) > 0 {
			wantSplit = scanRecords(data, scanSep(data[0]))
		}
		for _, piece := range []int{1, 2, 3, 7, 64, len(data)/2 + 1, par.LinePiece} {
			if got := strs(par.LinesPiece(data, piece).WithPool(pool).Collect()); !slices.Equal(got, want) {
				t.Fatalf("pieces of %d: Lines %q, the scanner %q", piece, got, want)
			}
			if got := par.LinesPiece(data, piece).WithPool(pool).Count(); got != len(want) {
				t.Fatalf("pieces of %d: Count %d, the scanner %d lines", piece, got, len(want))
			}
			if got := strs(par.LinesStringPiece(string(data), piece).WithPool(pool).Collect()); !slices.Equal(got, want) {
				t.Fatalf("pieces of %d: LinesString %q, the scanner %q", piece, got, want)
			}
			lines, readErr := par.ReadLinesPiece(bytes.NewReader(data), int64(len(data)), piece)
			got := strs(lines.WithPool(pool).Collect())
			if err := readErr(); err != nil || !slices.Equal(got, want) {
				t.Fatalf("pieces of %d: ReadLines %q (err %v), the scanner %q", piece, got, err, want)
			}
			if len(data) > 0 {
				if got := strs(par.SplitPiece(data, data[0], piece).WithPool(pool).Collect()); !slices.Equal(got, wantSplit) {
					t.Fatalf("pieces of %d: Split(%q) %q, the scanner %q", piece, data[0], got, wantSplit)
				}
			}
		}
	})
}

// lowestFailed returns the first of lines that failed holds.
func lowestFailed(lines []string, failed *sync.Map) string {
	for _, l := range lines {
		if _, ok := failed.Load(l); ok {
			return l
		}
	}
	return ""
}
