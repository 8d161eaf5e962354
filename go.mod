module github.com/gopar-dev/gopar

go 1.24.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/google/pprof v0.0.0-20260507013755-92041b743c96
	golang.org/x/exp v0.0.0-20250210185358-939b2ce775ac
	golang.org/x/sys v0.32.0
)
