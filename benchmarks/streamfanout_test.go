package benchmarks

import (
	"testing"
	"time"
)

// BenchmarkS3FirstResult measures how soon the first result of S3 reaches
// its consumer, as a multiple of the fastest call's wait (the target: at
// most 2), for the hand-written errgroup form and for gopar:
//
//	go test -run '^$' -bench S3FirstResult -count 5 .
func BenchmarkS3FirstResult(b *testing.B) {
	fastest := S3Fastest()
	for _, form := range []struct {
		name string
		run  func(use func(uint64)) uint64
	}{{"errgroup", S3Errgroup}, {"gopar", S3Gopar}} {
		b.Run(form.name, func(b *testing.B) {
			var first time.Duration
			for b.Loop() {
				start := time.Now()
				var got time.Duration
				form.run(func(uint64) {
					if got == 0 {
						got = time.Since(start)
					}
				})
				first += got
			}
			b.ReportMetric(float64(first)/float64(b.N)/float64(fastest), "first/fastest")
		})
	}
}
