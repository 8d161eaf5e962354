//go:build !go1.25

package main

// flight is a no-op before Go 1.25, which has no runtime/trace.FlightRecorder.
type flight struct{}

func startFlight(string) (*flight, error) { return &flight{}, nil }
func (*flight) snapshot()                 {}
func (*flight) stop() error               { return nil }

// files are the files that run writes.
var files = []string{"cpu.pprof", "trace.out"}
