// Package doccheck holds the repository's checks on its own text. The links
// between documents resolve, down to the heading an anchor names, and a
// comment or a document that cites a section by its heading cites one that
// exists, so that moving a section or renaming a file cannot leave a reader
// at a dead end. The docs name only functions and methods the code has.
// Every measured figure the README and the guide quote comes from a row of
// the results page (docs/benchmarks.md), which cmd/compare writes below a
// short hand-written head. The project speaks of itself, not of the rounds
// in which it was measured. No library file is over 450 lines and
// no function over 60 lines or 6 parameters. Each package imports only
// those below it in the layer table, no package imports a facade, and the
// public packages whose surface is bounded export no more than their bound
// and none of the plumbing. It has no API; the checks are its tests.
package doccheck
