// Package doccheck holds the repository's checks on its own Markdown: the
// links between documents must resolve, down to the heading an anchor names,
// so that moving a section or renaming a file cannot leave a reader at a dead
// end. It has no API; the checks are its tests.
package doccheck
