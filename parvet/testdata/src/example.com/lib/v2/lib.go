// Package lib is a stub whose import path ends in a major version, so that
// its name (lib) is not the path's last element (v2).
package lib

// Entry is an item to fan out over.
type Entry struct{ Name string }
