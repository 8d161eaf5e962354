module github.com/gopar-dev/gopar

go 1.24

require (
	github.com/google/go-cmp v0.7.0
	golang.org/x/exp v0.0.0-20250210185358-939b2ce775ac
	golang.org/x/sys v0.30.0
)
