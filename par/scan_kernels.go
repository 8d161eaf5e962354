package par

// scanKernels are the loops over one block of a scan (see scanBlock); each
// returns the reduction of the block's src (the first one: of identity and
// the block's src). Scans under + inline their additions in them: op itself
// then only chains the blocks' prefixes.
type scanKernels[T any] struct {
	// op is the scan's operation, which chains the blocks' prefixes.
	op func(T, T) T
	// first scans block 0 as the sequential loop does.
	first func(dst, src []T) T
	// local scans a block as if it began the input: inclusive, dst[i] =
	// src[0] op ... op src[i]; exclusive, dst[i] = src[0] op ... op
	// src[i-1] for i > 0, and dst[0] is left for fix.
	local func(dst, src []T) T
	// fix turns local's output into the scan from prefix p: dst[i] = p op
	// dst[i] (exclusive: dst[0] = p).
	fix func(dst []T, p T)
	// fused is local and fix in one pass, when p is known before the block
	// starts. It must write the same bits as they do.
	fused func(dst, src []T, p T) T
}

// opKernels are the kernels calling op.
func opKernels[T any](identity T, op func(T, T) T, inclusive bool) scanKernels[T] {
	if inclusive {
		return inclusiveOpKernels(op)
	}
	return exclusiveOpKernels(identity, op)
}

// inclusiveOpKernels are the kernels of an inclusive scan calling op.
// Block 0 starts from src[0] itself, as the loop's op(identity, src[0])
// would give for a neutral identity: the exact src[0] where identity is
// neutral only up to rounding (0.0 + -0.0 is 0.0). So first and local are
// the same loop.
func inclusiveOpKernels[T any](op func(T, T) T) scanKernels[T] {
	local := func(dst, src []T) T {
		acc := src[0]
		dst[0] = acc
		for i := 1; i < len(src); i++ {
			acc = op(acc, src[i])
			dst[i] = acc
		}
		return acc
	}
	return scanKernels[T]{
		op:    op,
		first: local,
		local: local,
		fix: func(dst []T, p T) {
			for i, x := range dst {
				dst[i] = op(p, x)
			}
		},
		fused: func(dst, src []T, p T) T {
			acc := src[0]
			dst[0] = op(p, acc)
			for i := 1; i < len(src); i++ {
				acc = op(acc, src[i])
				dst[i] = op(p, acc)
			}
			return acc
		},
	}
}

// exclusiveOpKernels are the kernels of an exclusive scan calling op, from
// identity.
func exclusiveOpKernels[T any](identity T, op func(T, T) T) scanKernels[T] {
	return scanKernels[T]{
		op: op,
		first: func(dst, src []T) T {
			acc := identity
			for i := range src {
				x := src[i] // before writing dst[i]: dst may be src
				dst[i] = acc
				acc = op(acc, x)
			}
			return acc
		},
		local: func(dst, src []T) T {
			acc := src[0]
			for i := 1; i < len(src); i++ {
				x := src[i]
				dst[i] = acc
				acc = op(acc, x)
			}
			return acc
		},
		fix: func(dst []T, p T) {
			dst[0] = p
			for i := 1; i < len(dst); i++ {
				dst[i] = op(p, dst[i])
			}
		},
		fused: func(dst, src []T, p T) T {
			acc := src[0]
			dst[0] = p
			for i := 1; i < len(src); i++ {
				x := src[i]
				dst[i] = op(p, acc)
				acc = op(acc, x)
			}
			return acc
		},
	}
}

// sumKernels are opKernels for +, with the additions inlined.
func sumKernels[T Number](inclusive bool) scanKernels[T] {
	if inclusive {
		return scanKernels[T]{op: addNumbers[T], first: localSumInclusive[T], local: localSumInclusive[T], fix: fixSumInclusive[T], fused: fusedSumInclusive[T]}
	}
	return scanKernels[T]{op: addNumbers[T], first: firstSumExclusive[T], local: localSumExclusive[T], fix: fixSumExclusive[T], fused: fusedSumExclusive[T]}
}

// The + kernels start from src[0] itself, not from 0 + src[0], as the op
// kernels do: for floats, 0 + -0.0 is 0.0.

func localSumInclusive[T Number](dst, src []T) T {
	dst = dst[:len(src)]
	acc := src[0]
	dst[0] = acc
	for i := 1; i < len(src); i++ {
		acc += src[i]
		dst[i] = acc
	}
	return acc
}

func fixSumInclusive[T Number](dst []T, p T) {
	for i := range dst {
		dst[i] = p + dst[i]
	}
}

func fusedSumInclusive[T Number](dst, src []T, p T) T {
	dst = dst[:len(src)]
	acc := src[0]
	dst[0] = p + acc
	for i := 1; i < len(src); i++ {
		acc += src[i]
		dst[i] = p + acc
	}
	return acc
}

func firstSumExclusive[T Number](dst, src []T) T {
	dst = dst[:len(src)]
	var acc T
	for i, x := range src {
		dst[i] = acc
		acc += x
	}
	return acc
}

func localSumExclusive[T Number](dst, src []T) T {
	dst = dst[:len(src)]
	acc := src[0]
	for i := 1; i < len(src); i++ {
		x := src[i]
		dst[i] = acc
		acc += x
	}
	return acc
}

func fixSumExclusive[T Number](dst []T, p T) {
	dst[0] = p
	for i := 1; i < len(dst); i++ {
		dst[i] = p + dst[i]
	}
}

func fusedSumExclusive[T Number](dst, src []T, p T) T {
	dst = dst[:len(src)]
	acc := src[0]
	dst[0] = p
	for i := 1; i < len(src); i++ {
		x := src[i]
		dst[i] = p + acc
		acc += x
	}
	return acc
}
