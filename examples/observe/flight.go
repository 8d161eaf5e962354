//go:build go1.25

package main

import (
	"os"
	"path/filepath"
	"runtime/trace"
	"sync"
	"time"
)

// flight keeps the last seconds of the execution trace in memory, and
// writes them out once when a request runs slow.
type flight struct {
	rec  *trace.FlightRecorder
	path string
	once sync.Once
	err  error
}

// startFlight starts a flight recorder whose snapshot goes to
// dir/slow.trace.
func startFlight(dir string) (*flight, error) {
	f := &flight{
		rec:  trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: 2 * time.Second}),
		path: filepath.Join(dir, "slow.trace"),
	}
	return f, f.rec.Start()
}

// snapshot writes what the recorder holds, the first time it is called:
// gopar calls it (WithSlow) while the slow operation still runs.
func (f *flight) snapshot() {
	f.once.Do(func() {
		out, err := os.Create(f.path)
		if err != nil {
			f.err = err
			return
		}
		defer out.Close()
		_, f.err = f.rec.WriteTo(out)
	})
}

// stop stops the recorder and returns the snapshot's error, if any.
func (f *flight) stop() error {
	f.rec.Stop()
	return f.err
}

// files are the files that run writes.
var files = []string{"cpu.pprof", "trace.out", "slow.trace"}
