package par

import (
	"cmp"
	"unsafe"

	"github.com/gopar-dev/gopar/internal/spill"
)

// A SortedOption sets how an operation that returns a Sorted prices its
// entries against the memory budget (EntrySize) or writes them to disk
// (EntryCodec). Options given later override earlier ones.
type SortedOption[K cmp.Ordered, V any] struct {
	size   func(K, V) int64
	format spill.Format[K, V]
}

// EntrySize returns the option that prices an entry at the size of its
// key and value plus what size returns: the bytes they point to, such as
// a slice's array or the fields of a struct value that are strings. It
// replaces the default, which counts the bytes of a string key (and, for
// GroupBySorted, the group's items). For an operation whose values
// change (ReduceByKeySorted, GroupBySorted), size is called again on
// each change. A nil size panics.
//
//	par.ReduceByKeySorted(it, kv, op, par.EntrySize(func(user string, v Visit) int64 {
//		return int64(len(user) + len(v.Agent))
//	}))
func EntrySize[K cmp.Ordered, V any](size func(k K, v V) int64) SortedOption[K, V] {
	mustFunc(size, "EntrySize")
	return SortedOption[K, V]{size: size}
}

// EntryCodec returns the option that writes each entry that spills as the
// bytes that enc appends to buf, and reads it back with dec, which gets
// exactly those bytes (and may keep none of them: the buffer is reused).
// Without it, integers, floats and strings have compact codecs of their
// own, and any other type of key or value goes through encoding/gob. An
// error from dec ends the range over All, and Err returns it. A nil enc
// or dec panics.
//
//	par.EntryCodec(
//		func(buf []byte, k string, v Point) []byte { ... },
//		func(data []byte) (string, Point, error) { ... })
func EntryCodec[K cmp.Ordered, V any](enc func(buf []byte, k K, v V) []byte, dec func(data []byte) (K, V, error)) SortedOption[K, V] {
	mustFunc(enc, "EntryCodec (enc)")
	mustFunc(dec, "EntryCodec (dec)")
	return SortedOption[K, V]{format: spill.Bytes(enc, dec)}
}

// pricing is how an operation prices and writes its entries: the options
// in effect (size nil: no bytes counted past the entry's own), and whether
// the user's size function is to be called again on each change of a
// value.
type pricing[K cmp.Ordered, V any] struct {
	SortedOption[K, V]
	grows bool
}

// entries returns the pricing of an operation from its default size
// function (nil if none), whether its values change, and the options.
func entries[K cmp.Ordered, V any](size func(K, V) int64, changes bool, opts []SortedOption[K, V]) pricing[K, V] {
	user := false
	p := pricing[K, V]{SortedOption: SortedOption[K, V]{size: size}}
	for _, o := range opts {
		if o.size != nil {
			p.size, user = o.size, true
		}
		if !o.format.Default() {
			p.format = o.format
		}
	}
	p.grows = changes && user
	return p
}

// entryBytes estimates what an entry of a map[K]V costs, from its key and
// value: a Go map's slot, with its control byte, at a load between 7/16
// and 7/8 (2.4 times the slot, measured between 1,000 and 3M entries),
// plus the entry in the slice that sorts it.
func entryBytes[K, V any]() int64 {
	kv := int64(unsafe.Sizeof(*new(K)) + unsafe.Sizeof(*new(V)))
	return (kv+1)*12/5 + kv
}

// keyBytes returns the size function that counts the bytes of a string
// key, nil if K is not string.
func keyBytes[K, V any]() func(K, V) int64 {
	if _, ok := any(*new(K)).(string); !ok {
		return nil
	}
	return func(k K, _ V) int64 { return int64(len(*any(&k).(*string))) }
}
