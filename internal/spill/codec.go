package spill

import (
	"bufio"
	"encoding/binary"
	"encoding/gob"
	"fmt"
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
		c = float32Codec()
	case float64:
		c = float64Codec()
	case string:
		c = stringCodec()
	case struct{}:
		c = emptyCodec()
	default:
		return codec[E]{}
	}
	return c.(codec[E])
}

// Format is how a run writes its entries: the zero Format uses the codecs
// of the key and the value (codecFor), or encoding/gob for both where
// either has none; Bytes's, the functions of the caller.
type Format[K, V any] struct {
	enc func(b []byte, k K, v V) []byte
	dec func(b []byte) (K, V, error)
}

// Default reports whether f is the zero Format.
func (f Format[K, V]) Default() bool { return f.enc == nil }

// Bytes returns the Format that writes each entry as its length and the
// bytes that enc appends, and reads it back with dec.
func Bytes[K, V any](enc func(b []byte, k K, v V) []byte, dec func(b []byte) (K, V, error)) Format[K, V] {
	return Format[K, V]{enc: enc, dec: dec}
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

// float32Codec writes a float32 as its bits, in 4 bytes.
func float32Codec() codec[float32] {
	return codec[float32]{
		put: func(b []byte, f float32) []byte { return binary.LittleEndian.AppendUint32(b, math.Float32bits(f)) },
		get: func(r *bufio.Reader) (float32, error) {
			b, err := fixed(r, 4)
			if err != nil {
				return 0, err
			}
			return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
		},
	}
}

// float64Codec writes a float64 as its bits, in 8 bytes.
func float64Codec() codec[float64] {
	return codec[float64]{
		put: func(b []byte, f float64) []byte { return binary.LittleEndian.AppendUint64(b, math.Float64bits(f)) },
		get: func(r *bufio.Reader) (float64, error) {
			b, err := fixed(r, 8)
			if err != nil {
				return 0, err
			}
			return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
		},
	}
}

// stringCodec writes a string as its length, a uvarint, and its bytes.
func stringCodec() codec[string] {
	return codec[string]{
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
}

// emptyCodec writes the empty struct as no bytes.
func emptyCodec() codec[struct{}] {
	return codec[struct{}]{
		put: func(b []byte, _ struct{}) []byte { return b },
		get: func(*bufio.Reader) (struct{}, error) { return struct{}{}, nil },
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

// entryWriter writes entries to w in its Format.
type entryWriter[K, V any] struct {
	w   *bufio.Writer
	f   Format[K, V]
	kc  codec[K]
	vc  codec[V]
	gob *gob.Encoder
	buf []byte
}

func newEntryWriter[K, V any](w *bufio.Writer, f Format[K, V]) *entryWriter[K, V] {
	e := &entryWriter[K, V]{w: w, f: f, kc: codecFor[K](), vc: codecFor[V]()}
	if f.enc == nil && (e.kc.put == nil || e.vc.put == nil) {
		e.gob = gob.NewEncoder(w)
	}
	return e
}

func (e *entryWriter[K, V]) write(k K, v V) error {
	switch {
	case e.f.enc != nil:
		e.buf = e.f.enc(e.buf[:0], k, v)
		var n [binary.MaxVarintLen64]byte
		if _, err := e.w.Write(binary.AppendUvarint(n[:0], uint64(len(e.buf)))); err != nil {
			return err
		}
	case e.gob != nil:
		if err := e.gob.Encode(&k); err != nil {
			return err
		}
		return e.gob.Encode(&v)
	default:
		e.buf = e.vc.put(e.kc.put(e.buf[:0], k), v)
	}
	_, err := e.w.Write(e.buf)
	return err
}

// entryReader reads what an entryWriter of the same Format wrote.
type entryReader[K, V any] struct {
	r   *bufio.Reader
	f   Format[K, V]
	kc  codec[K]
	vc  codec[V]
	gob *gob.Decoder
	buf []byte
}

func newEntryReader[K, V any](r *bufio.Reader, f Format[K, V]) *entryReader[K, V] {
	e := &entryReader[K, V]{r: r, f: f, kc: codecFor[K](), vc: codecFor[V]()}
	if f.dec == nil && (e.kc.put == nil || e.vc.put == nil) {
		e.gob = gob.NewDecoder(r)
	}
	return e
}

// read returns the next entry, or io.EOF after the last.
func (e *entryReader[K, V]) read() (k K, v V, err error) {
	switch {
	case e.f.dec != nil:
		n, err := binary.ReadUvarint(e.r)
		if err != nil {
			return k, v, err
		}
		if uint64(cap(e.buf)) < n {
			e.buf = make([]byte, n)
		}
		e.buf = e.buf[:n]
		if _, err := io.ReadFull(e.r, e.buf); err != nil {
			return k, v, noEOF(err)
		}
		if k, v, err = e.f.dec(e.buf); err != nil {
			return k, v, fmt.Errorf("decoding an entry: %w", err)
		}
		return k, v, nil
	case e.gob != nil:
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
