module github.com/gopar-dev/gopar/benchmarks

go 1.26.0

require (
	github.com/exascience/pargo v1.1.0
	github.com/gopar-dev/gopar v0.0.0
	github.com/sourcegraph/conc v0.3.0
	golang.org/x/sync v0.24.0
)

require (
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
)

replace github.com/gopar-dev/gopar => ../
