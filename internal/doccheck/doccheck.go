// Package doccheck holds the repository's checks on its own text. The links
// between documents resolve, down to the heading an anchor names, and a
// comment or a document that cites a section by its heading cites one that
// exists, so that moving a section or renaming a file cannot leave a reader
// at a dead end. The docs name only functions and methods the code has.
// Every measured figure the README and the guide quote comes from a row of
// the results page (docs/benchmarks.md), which cmd/compare writes below a
// short hand-written head. The project speaks of itself, not of the rounds
// in which it was measured. No function of iter or internal/pipe is over 80 lines. It has no
// API; the checks are its tests.
package doccheck
