package spill

import (
	"bufio"
	"encoding/binary"
	"encoding/gob"
	"io"
	"math"
)

// codec writes and reads values of E in a run's file. The basic types
// have codecs of their own (varints for integers, the bits of floats, a
// length and the bytes of strings); put is nil for any other type, whose
// values go through encoding/gob.
type codec[E any] struct {
	put func(b []byte, e E) []byte
	get func(r *bufio.Reader) (E, error)
}

// codecFor returns E's codec. For a basic type, the codec of that type is
// E's own (codec[int] is codec[E] when E is int), so a value costs no
// conversion; a named type (type ID int64) goes through encoding/gob.
func codecFor[E any]() codec[E] {
	var c any
	switch any(*new(E)).(type) {
	case int:
		c = signed[int]()
	case int8:
		c = signed[int8]()
	case int16:
		c = signed[int16]()
	case int32:
		c = signed[int32]()
	case int64:
		c = signed[int64]()
	case uint:
		c = unsigned[uint]()
	case uint8:
		c = unsigned[uint8]()
	case uint16:
		c = unsigned[uint16]()
	case uint32:
		c = unsigned[uint32]()
	case uint64:
		c = unsigned[uint64]()
	case uintptr:
		c = unsigned[uintptr]()
	case float32:
		c = codec[float32]{
			put: func(b []byte, f float32) []byte { return binary.LittleEndian.AppendUint32(b, math.Float32bits(f)) },
			get: func(r *bufio.Reader) (float32, error) {
				b, err := fixed(r, 4)
				if err != nil {
					return 0, err
				}
				return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
			},
		}
	case float64:
		c = codec[float64]{
			put: func(b []byte, f float64) []byte { return binary.LittleEndian.AppendUint64(b, math.Float64bits(f)) },
			get: func(r *bufio.Reader) (float64, error) {
				b, err := fixed(r, 8)
				if err != nil {
					return 0, err
				}
				return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
			},
		}
	case string:
		c = codec[string]{
			put: func(b []byte, s string) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) },
			get: func(r *bufio.Reader) (string, error) {
				n, err := binary.ReadUvarint(r)
				if err != nil {
					return "", err
				}
				b := make([]byte, n)
				if _, err := io.ReadFull(r, b); err != nil {
					return "", noEOF(err)
				}
				return string(b), nil
			},
		}
	default:
		return codec[E]{}
	}
	return c.(codec[E])
}

func signed[I int | int8 | int16 | int32 | int64]() codec[I] {
	return codec[I]{
		put: func(b []byte, i I) []byte { return binary.AppendVarint(b, int64(i)) },
		get: func(r *bufio.Reader) (I, error) {
			v, err := binary.ReadVarint(r)
			return I(v), err
		},
	}
}

func unsigned[U uint | uint8 | uint16 | uint32 | uint64 | uintptr]() codec[U] {
	return codec[U]{
		put: func(b []byte, u U) []byte { return binary.AppendUvarint(b, uint64(u)) },
		get: func(r *bufio.Reader) (U, error) {
			v, err := binary.ReadUvarint(r)
			return U(v), err
		},
	}
}

// fixed reads n bytes: io.EOF if there are none, io.ErrUnexpectedEOF if
// there are some but fewer.
func fixed(r *bufio.Reader, n int) ([]byte, error) {
	b, err := r.Peek(n)
	if err != nil {
		if len(b) == 0 && err == io.EOF {
			return nil, io.EOF
		}
		return nil, noEOF(err)
	}
	_, _ = r.Discard(n)
	return b, nil
}

// noEOF turns an end of file in the middle of an entry into
// io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// entryWriter writes entries to w with their codecs, or with one gob
// encoder where either side has none.
type entryWriter[K, V any] struct {
	w   *bufio.Writer
	kc  codec[K]
	vc  codec[V]
	gob *gob.Encoder
	buf []byte
}

func newEntryWriter[K, V any](w *bufio.Writer) *entryWriter[K, V] {
	e := &entryWriter[K, V]{w: w, kc: codecFor[K](), vc: codecFor[V]()}
	if e.kc.put == nil || e.vc.put == nil {
		e.gob = gob.NewEncoder(w)
	}
	return e
}

func (e *entryWriter[K, V]) write(k K, v V) error {
	if e.gob != nil {
		if err := e.gob.Encode(&k); err != nil {
			return err
		}
		return e.gob.Encode(&v)
	}
	e.buf = e.vc.put(e.kc.put(e.buf[:0], k), v)
	_, err := e.w.Write(e.buf)
	return err
}

// entryReader reads what an entryWriter wrote.
type entryReader[K, V any] struct {
	r   *bufio.Reader
	kc  codec[K]
	vc  codec[V]
	gob *gob.Decoder
}

func newEntryReader[K, V any](r *bufio.Reader) *entryReader[K, V] {
	e := &entryReader[K, V]{r: r, kc: codecFor[K](), vc: codecFor[V]()}
	if e.kc.put == nil || e.vc.put == nil {
		e.gob = gob.NewDecoder(r)
	}
	return e
}

// read returns the next entry, or io.EOF after the last.
func (e *entryReader[K, V]) read() (k K, v V, err error) {
	if e.gob != nil {
		if err = e.gob.Decode(&k); err != nil {
			return k, v, err
		}
		return k, v, noEOF(e.gob.Decode(&v))
	}
	if k, err = e.kc.get(e.r); err != nil {
		return k, v, err
	}
	v, err = e.vc.get(e.r)
	return k, v, noEOF(err)
}
