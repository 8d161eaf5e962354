package doccheck

import (
	"go/build"
	"path/filepath"
)

// inBuild reports whether the Go file name in dir is part of its package for
// the toolchain that runs the test. The checks that parse Go files skip the
// others: a file for a newer Go (par/chain.go, //go:build go1.27) holds
// syntax that an older go/parser rejects; CI's Go 1.27 leg checks it.
func inBuild(dir, name string) bool {
	ok, err := build.Default.MatchFile(dir, name)
	return err == nil && ok
}

// inBuildPath is inBuild for a path relative to root.
func inBuildPath(root, rel string) bool {
	return inBuild(filepath.Join(root, filepath.Dir(rel)), filepath.Base(rel))
}
