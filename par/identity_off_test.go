//go:build !gc || !(amd64 || arm64) || gopar_nocurg

package par_test

// identityKnown is false where runtime's curG is left out (curg_other.go):
// a nested par call then enters as a guest.
const identityKnown = false
