module github.com/gopar-dev/gopar

go 1.23

require (
	github.com/google/go-cmp v0.7.0
	golang.org/x/sys v0.30.0
)
