package benchmarks

import (
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns this process's peak resident set, in kilobytes, from
// /proc/self/status (Linux): what the commands that run each
// implementation in a process of its own report (cmd/stream, cmd/keys).
func PeakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				panic(err)
			}
			return kb
		}
	}
	panic("no VmHWM in /proc/self/status")
}
