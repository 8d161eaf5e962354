module github.com/gopar-dev/gopar

go 1.23.0

require (
	github.com/google/go-cmp v0.7.0
	golang.org/x/exp v0.0.0-20250506013437-ce4c2cf36ca6
	golang.org/x/sys v0.30.0
)
