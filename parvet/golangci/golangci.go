// Package golangci makes parvet's analyzers a golangci-lint module plugin.
//
// Build a golangci-lint that includes them with golangci-lint custom and a
// .custom-gcl.yml of
//
//	version: v2.15.0
//	plugins:
//	  - module: github.com/gopar-dev/gopar/parvet
//	    import: github.com/gopar-dev/gopar/parvet/golangci
//	    version: latest
//
// and turn the linter on in .golangci.yml:
//
//	linters:
//	  enable:
//	    - parvet
//	  settings:
//	    custom:
//	      parvet:
//	        type: module
//	        description: data races in gopar callbacks, fan-outs gopar replaces, locks held across gopar calls
//
// The plugin takes no settings; it runs callbackrace, fanout and lockheld.
package golangci

import (
	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/gopar-dev/gopar/parvet/callbackrace"
	"github.com/gopar-dev/gopar/parvet/fanout"
	"github.com/gopar-dev/gopar/parvet/lockheld"
)

func init() {
	register.Plugin("parvet", New)
}

// New returns the parvet plugin; it takes no settings.
func New(settings any) (register.LinterPlugin, error) {
	return plugin{}, nil
}

type plugin struct{}

// BuildAnalyzers returns callbackrace, fanout and lockheld.
func (plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{callbackrace.Analyzer, fanout.Analyzer, lockheld.Analyzer}, nil
}

// GetLoadMode says that the analyzers need type information.
func (plugin) GetLoadMode() string {
	return register.LoadModeTypesInfo
}
