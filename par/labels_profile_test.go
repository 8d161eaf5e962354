package par_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/gopar-dev/gopar/internal/labels"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// The callbacks of TestCallbackSamplesCarryTheirCallersLabels: one
// function per caller, so that a sample's stack says whose callback it
// is, and its label whose labels it wore.
//
//go:noinline
func profiled0(i int) int { return int(burnItem(i)) }

//go:noinline
func profiled1(i int) int { return int(burnItem(i)) }

//go:noinline
func profiled2(i int) int { return int(burnItem(i)) }

//go:noinline
func profiled3(i int) int { return int(burnItem(i)) }

//go:noinline
func profiled4(i int) int { return int(burnItem(i)) }

//go:noinline
func profiled5(i int) int { return int(burnItem(i)) }

//go:noinline
func profiled6(i int) int { return int(burnItem(i)) }

//go:noinline
func profiled7(i int) int { return int(burnItem(i)) }

var profiled = []func(int) int{profiled0, profiled1, profiled2, profiled3, profiled4, profiled5, profiled6, profiled7}

// TestCallbackSamplesCarryTheirCallersLabels is the measure a user takes:
// a CPU profile of two and of eight callers under different pprof labels,
// each running operations on the shared pool for a second. At
// least 99% of the samples in each caller's callbacks carry its label,
// and none another caller's. (TestCallbacksWearTheirCallersLabels checks
// every callback exactly; this checks what a profile shows.)
func TestCallbackSamplesCarryTheirCallersLabels(t *testing.T) {
	if !labels.Carried {
		t.Skip("built with gopar_nolabels: no labels are carried")
	}
	if testing.Short() || race.Enabled {
		t.Skip("a CPU profile of a second or more")
	}
	forms := map[string]func(f func(int) int){
		"Range.Map.Sum": func(f func(int) int) { par.Range(0, 40000).Map(f).Sum() },
		"Blocking": func(f func(int) int) {
			par.Range(0, 400).Blocking(4).ForEach(func(i int) {
				for j := range 100 {
					f(i + j)
				}
			})
		},
		"FromSeq.Values": func(f func(int) int) {
			for range par.Map(par.FromSeq(func(yield func(int) bool) {
				for i := range 40000 {
					if !yield(i) {
						return
					}
				}
			}), f).Values() {
			}
		},
	}
	for _, callers := range []int{2, 8} {
		for name, form := range forms {
			t.Run(fmt.Sprintf("%s/%d", name, callers), func(t *testing.T) {
				var buf bytes.Buffer
				if err := pprof.StartCPUProfile(&buf); err != nil {
					t.Skipf("a CPU profile is running already: %v", err)
				}
				var wg sync.WaitGroup
				deadline := time.Now().Add(time.Second)
				for c := range callers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						pprof.Do(context.Background(), pprof.Labels("caller", fmt.Sprint(c)), func(context.Context) {
							for time.Now().Before(deadline) {
								form(profiled[c])
							}
						})
					}()
				}
				wg.Wait()
				pprof.StopCPUProfile()
				prof, err := profile.Parse(&buf)
				if err != nil {
					t.Fatal(err)
				}
				own, other, none := 0, 0, 0
				for _, s := range prof.Sample {
					c := callerOf(s)
					if c < 0 {
						continue
					}
					n := int(s.Value[0]) // samples of this stack and labels
					switch got := s.Label["caller"]; {
					case len(got) == 0:
						none += n
					case got[0] == fmt.Sprint(c):
						own += n
					default:
						other += n
					}
				}
				total := own + other + none
				t.Logf("%d samples in callbacks: %d own labels, %d another caller's, %d none", total, own, other, none)
				if total < 20 {
					t.Skipf("too few samples (%d) to judge", total)
				}
				if other > 0 || float64(own) < 0.99*float64(total) {
					t.Errorf("want at least 99%% own labels and none another caller's")
				}
			})
		}
	}
}

// callerOf returns whose callback the sample s fell in, or -1.
func callerOf(s *profile.Sample) int {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			name := line.Function.Name
			if i := strings.LastIndex(name, ".profiled"); i >= 0 {
				var c int
				if _, err := fmt.Sscan(name[i+len(".profiled"):], &c); err == nil {
					return c
				}
			}
		}
	}
	return -1
}
