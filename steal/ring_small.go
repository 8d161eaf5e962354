//go:build gopar_small

package steal

// initialRingSize is shrunk to 2 slots under the gopar_small build tag so that
// tests reach the grow and wrap-around paths on nearly every operation.
// Must be a power of two.
const initialRingSize = 2
