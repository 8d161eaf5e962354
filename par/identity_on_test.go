//go:build gc && (amd64 || arm64) && !gopar_nocurg

package par_test

// identityKnown mirrors the build condition of runtime's curg.go: there the
// pool tells which member runs a goroutine, and a nested par call runs on it.
const identityKnown = true
