package pipe

import (
	"unsafe"

	"github.com/gopar-dev/gopar/runtime"
)

// bufferLimit returns a stream's limit under cfg, in source items:
// cfg.Buffer, if positive; else as many as defaultBufferBytes (or the
// memory budget, if less: windowBytes) holds at size bytes each, within
// [leastBuffer, defaultBuffer].
func bufferLimit(cfg Config, size uintptr) int {
	if cfg.Buffer > 0 {
		return cfg.Buffer
	}
	return max(leastBuffer(cfg), min(defaultBuffer, cfg.windowBytes(defaultBufferBytes)/int(max(size, 1))))
}

// streamLimit is the limit of a stream of s's items: a source position
// holds an item of T and, over a seq, the seq's item in the ring. Its
// least is leastBuffer, so that every participant has an item to run.
func streamLimit[T any](s *Spec[T]) int {
	return bufferLimit(s.Config, streamItemSize(s))
}

// streamItemSize is what a source position of a stream of s's items
// takes while it is held: its item of T and, over a seq, the seq's item
// in the ring.
func streamItemSize[T any](s *Spec[T]) uintptr {
	size := unsafe.Sizeof(*new(T))
	if s.seq != nil {
		size += s.seq.itemSize()
	}
	return size
}

// leastBuffer is the least default limit of a loop with the settings cfg:
// its pool's workers, or its calls at once with Blocking.
func leastBuffer(cfg Config) int {
	if cfg.Blocking > 0 {
		return cfg.Blocking
	}
	pool := cfg.Pool
	if pool == nil {
		pool = runtime.Default()
	}
	return pool.Workers()
}
