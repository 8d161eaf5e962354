package golangci_test

import (
	"testing"

	"github.com/golangci/plugin-module-register/register"

	"github.com/gopar-dev/gopar/parvet/golangci"
)

// TestPlugin checks that the plugin registers under its name and builds
// the three analyzers.
func TestPlugin(t *testing.T) {
	newPlugin, err := register.GetPlugin("parvet")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(nil)
	if err != nil {
		t.Fatal(err)
	}
	as, err := p.BuildAnalyzers()
	if err != nil || len(as) != 3 {
		t.Fatalf("BuildAnalyzers() = %v, %v; want 3 analyzers", as, err)
	}
	if p.GetLoadMode() != register.LoadModeTypesInfo {
		t.Errorf("load mode %q, want %q", p.GetLoadMode(), register.LoadModeTypesInfo)
	}
	_ = golangci.New
}
