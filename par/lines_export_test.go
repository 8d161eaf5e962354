package par

import "io"

// LinePiece is the length of the pieces the record sources cut their input
// into, so that tests can put records across piece boundaries.
const LinePiece = linePiece

// LinesPiece, LinesStringPiece, SplitPiece and ReadLinesPiece are the record
// sources with pieces of piece bytes, so that a fuzz target's short inputs
// cross many piece boundaries.

func LinesPiece(data []byte, piece int) Iter[[]byte] { return splitRecords(data, '\n', true, piece) }

func LinesStringPiece(s string, piece int) Iter[string] { return linesString(s, piece) }

func SplitPiece(data []byte, sep byte, piece int) Iter[[]byte] {
	return splitRecords(data, sep, false, piece)
}

func ReadLinesPiece(r io.ReaderAt, size int64, piece int) (Iter[[]byte], func() error) {
	return readLines(r, size, piece)
}
