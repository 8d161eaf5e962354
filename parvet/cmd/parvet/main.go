// Command parvet runs parvet's analyzers: callbackrace, which reports data
// races in the callbacks of gopar's parallel operations, and fanout, which
// finds hand-rolled goroutine fan-outs that a gopar operation replaces.
//
// Run it over packages directly:
//
//	go run github.com/gopar-dev/gopar/parvet/cmd/parvet@latest ./...
//
// or through go vet, which then runs parvet's analyzers instead of its own:
//
//	go install github.com/gopar-dev/gopar/parvet/cmd/parvet@latest
//	go vet -vettool=$(which parvet) ./...
//
// The flags -callbackrace and -fanout select one analyzer; -fix applies
// the suggested fixes (the first one of each report), and -diff prints them.
package main

import (
	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/gopar-dev/gopar/parvet/callbackrace"
	"github.com/gopar-dev/gopar/parvet/fanout"
)

func main() {
	multichecker.Main(callbackrace.Analyzer, fanout.Analyzer)
}
