// Command stream measures issue 24's ordered streaming target: the lines of
// a generated text of about 200 MB, each mapped with about 10 us of work
// and consumed in input order, by a plain loop (seq) and by
// par.Map(par.FromSeq(lines), work).Values() (gopar), with the time and
// the peak resident memory of each.
//
// Each run is a child process of its own, which reports its own peak RSS
// (VmHWM in /proc/self/status) as it ends. (The rusage's Maxrss that the
// parent could read is no good here: Linux starts a child's at the RSS of
// the parent when it started the child, larger than either run's.) The runs alternate (seq gopar seq gopar ...), and a balanced
// probe, the same work on 2^17 integers by a plain loop and by a static
// fan-out of GOMAXPROCS goroutines, runs in the same rotation: its speedup
// says whether the machine had its cores during the run (trusted at
// >= 1.7x).
//
//	go run ./cmd/stream                 # 3 rounds, GOMAXPROCS=2, 200 MB
//	go run ./cmd/stream -rounds 5 -mb 50
//	go run ./cmd/stream -endless        # the bounded-memory check
//
// With -endless it measures instead an endless sequence of 100-byte strings,
// each mapped with the same work, consumed in order and left with a break
// after 1,000 results: the peak RSS of the plain loop and of gopar's Values,
// and how many items gopar pulled past the break (its bound: the 1,000
// consumed plus Values' buffer of 65,536, plus one chunk of 256 items).
//
// With -records it measures instead the memory a stream of large items
// holds: 1 KB records ([1024]byte), each mapped to another, consumed in
// order by a loop that sleeps 1 ms every 1,000 records, through
// par.Map(par.FromSeq(src), f).Values() at 2, 16 and 64 workers, and
// through a hand-written producer, channel of 2P batches of 1,024 records
// and P workers, in order (P = GOMAXPROCS): the peak HeapInuse each saw.
//
// The text is written once to a file in the temporary folder and reused.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gopar-dev/gopar/benchmarks"
	"github.com/gopar-dev/gopar/par"
)

func main() {
	var (
		mb      = flag.Int("mb", 200, "size of the text, in MB (10^6 bytes)")
		rounds  = flag.Int("rounds", 3, "rounds of seq, gopar and the probe")
		procs   = flag.Int("procs", 2, "GOMAXPROCS of the runs")
		path    = flag.String("file", "", "the text (default: gopar-stream-<mb>MB.txt in the temporary folder, made if missing)")
		child   = flag.String("child", "", "run one implementation and print its checksum and time (used by the parent)")
		endless = flag.Bool("endless", false, "measure the break out of an endless sequence instead")
		records = flag.Bool("records", false, "measure the peak heap of a stream of 1 KB records instead")
	)
	flag.Parse()
	if *records && *child == "" {
		runRecords(*rounds, *procs)
		return
	}
	if *endless && *child == "" {
		runEndless(*rounds, *procs)
		return
	}
	if *path == "" {
		*path = filepath.Join(os.TempDir(), fmt.Sprintf("gopar-stream-%dMB.txt", *mb))
	}
	if *child != "" {
		runChild(*child, *path)
		return
	}
	if err := ensureText(*path, *mb*1_000_000); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	impls := []string{"seq", "gopar", "probe-seq", "probe-static"}
	times := map[string][]time.Duration{}
	rss := map[string][]int64{}
	sums := map[string]string{}
	for r := 0; r < *rounds; r++ {
		for _, im := range impls {
			sum, took, maxRSS, err := runOnce(im, *path, *procs)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if prev, ok := sums[im]; ok && prev != sum {
				fmt.Fprintf(os.Stderr, "%s: checksum %s, earlier %s\n", im, sum, prev)
				os.Exit(1)
			}
			sums[im] = sum
			times[im] = append(times[im], took)
			rss[im] = append(rss[im], maxRSS)
			fmt.Printf("round %d %-13s %8.3f s  peak RSS %6.1f MB  checksum %s\n", r+1, im, took.Seconds(), float64(maxRSS)/1e6, sum)
		}
	}
	if sums["seq"] != sums["gopar"] {
		fmt.Fprintf(os.Stderr, "gopar's checksum %s differs from seq's %s\n", sums["gopar"], sums["seq"])
		os.Exit(1)
	}
	med := func(im string) time.Duration { return median(times[im]) }
	probe := float64(med("probe-seq")) / float64(med("probe-static"))
	speedup := float64(med("seq")) / float64(med("gopar"))
	extra := float64(slices.Max(rss["gopar"])-slices.Max(rss["seq"])) / 1e6
	trust := "trusted"
	if probe < 1.7 {
		trust = "UNTRUSTED (probe < 1.7x)"
	}
	fmt.Printf("\nGOMAXPROCS=%d, %d MB, %d rounds (medians): seq %.2f s, gopar %.2f s\n", *procs, *mb, *rounds, med("seq").Seconds(), med("gopar").Seconds())
	fmt.Printf("speedup %.2fx (target >= 1.7x: %s); peak RSS seq %.1f MB, gopar %.1f MB, %+.1f MB (target <= +64 MB: %s); probe %.2fx, %s\n",
		speedup, pass(speedup >= 1.7), float64(slices.Max(rss["seq"]))/1e6, float64(slices.Max(rss["gopar"]))/1e6, extra, pass(extra <= 64), probe, trust)
}

func pass(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

func median(xs []time.Duration) time.Duration {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// runOnce runs one implementation in a child process and returns its
// checksum, the time it reported and its peak RSS in bytes.
func runOnce(im, path string, procs int) (sum string, took time.Duration, maxRSS int64, err error) {
	return runWorkers(im, path, procs, procs)
}

// runWorkers is runOnce with a pool of workers workers.
func runWorkers(im, path string, procs, workers int) (sum string, took time.Duration, maxRSS int64, err error) {
	cmd := exec.Command(os.Args[0], "-child", im, "-file", path)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs), "GOPAR_WORKERS="+strconv.Itoa(workers))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", 0, 0, fmt.Errorf("%s: %v", im, err)
	}
	f := strings.Fields(string(out))
	if len(f) == 4 { // an endless run: the items pulled
		sum = f[0] + " pulled " + f[3]
		f[0] = sum
		f = f[:3]
	}
	if len(f) != 3 {
		return "", 0, 0, fmt.Errorf("%s printed %q", im, out)
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return "", 0, 0, err
	}
	kb, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return "", 0, 0, err
	}
	return f[0], time.Duration(ns), kb * 1024, nil
}

func runChild(im, path string) {
	var sum uint64
	start := time.Now()
	switch im {
	case "seq":
		for line := range lines(path) {
			sum = sum*31 + work(line) // in input order
		}
	case "gopar":
		for v := range par.Map(par.FromSeq(lines(path)), work).Values() {
			sum = sum*31 + v
		}
	case "probe-seq":
		sum = benchmarks.LoopSum(probeItems, probeItem)
	case "probe-static":
		sum = benchmarks.StaticSum(probeItems, probeItem)
	case "records-hand", "records-gopar":
		sum, peak := runRecordsChild(im == "records-gopar")
		fmt.Println(sum, time.Since(start).Nanoseconds(), peak/1024)
		return
	case "endless-seq", "endless-gopar":
		var pulled int
		seq := func(yield func(string) bool) {
			pad := strings.Repeat("x", 90)
			for i := 0; ; i++ {
				pulled++
				if !yield(fmt.Sprintf("%s%010d", pad, i)) {
					return
				}
			}
		}
		n := 0
		if im == "endless-seq" {
			for line := range seq {
				sum = sum*31 + work(line)
				if n++; n == endlessTaken {
					break
				}
			}
		} else {
			for v := range par.Map(par.FromSeq(seq), work).Values() {
				sum = sum*31 + v
				if n++; n == endlessTaken {
					break
				}
			}
		}
		fmt.Println(sum, time.Since(start).Nanoseconds(), benchmarks.PeakRSS(), pulled)
		return
	default:
		fmt.Fprintln(os.Stderr, "unknown implementation", im)
		os.Exit(2)
	}
	took := time.Since(start)
	fmt.Println(sum, took.Nanoseconds(), benchmarks.PeakRSS())
}

// lines is the lines of the file at path, read as a user would.
func lines(path string) iter.Seq[string] {
	return func(yield func(string) bool) {
		f, err := os.Open(path)
		if err != nil {
			panic(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if !yield(sc.Text()) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			panic(err)
		}
	}
}

// workRounds rounds of mix take about 10 us here (benchmarks.T4's item).
const workRounds = 4000

// work is the work of a line: a hash of its bytes, then workRounds rounds
// of mix.
func work(line string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(line); i++ {
		h = (h ^ uint64(line[i])) * 1099511628211
	}
	return rounds(h, workRounds)
}

func rounds(h uint64, r int) uint64 {
	for range r {
		h = mix(h)
	}
	return h
}

func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// probeItems items of work make the balanced probe (about 1.3 s on one core).
const probeItems = 1 << 17

// probeItem is an item of the probe: workRounds rounds of mix, as a
// line's work (benchmarks.LoopSum and StaticSum run it).
func probeItem(i int) uint64 { return rounds(uint64(i), workRounds) }

// ensureText writes a text of at least size bytes to path, unless a file
// of that size is there: lines of 40 to 160 bytes (about 100 on average)
// of words from a fixed vocabulary, the same every time.
func ensureText(path string, size int) error {
	if st, err := os.Stat(path); err == nil && st.Size() >= int64(size) {
		return nil
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	words := strings.Fields("the of and to in is was for on that with as by at from his her an which are or be this had not but")
	state := uint64(1)
	written := 0
	for n := 0; written < size; n++ {
		state = mix(state)
		target := 40 + int(state%121)
		line := strconv.Itoa(n)
		for len(line) < target {
			state = mix(state)
			line += " " + words[state%uint64(len(words))]
		}
		k, _ := w.WriteString(line + "\n")
		written += k
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// endlessTaken is the number of results an endless run consumes before
// its break.
const endlessTaken = 1000

// runEndless runs the endless-sequence check: rounds of the plain loop and
// gopar's Values, alternated, each in a child process.
func runEndless(rounds, procs int) {
	var rss [2][]int64
	for r := 0; r < rounds; r++ {
		for k, im := range []string{"endless-seq", "endless-gopar"} {
			sum, took, maxRSS, err := runOnce(im, "", procs)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			rss[k] = append(rss[k], maxRSS)
			fmt.Printf("round %d %-14s %8.3f s  peak RSS %6.1f MB  checksum %s\n", r+1, im, took.Seconds(), float64(maxRSS)/1e6, sum)
		}
	}
	extra := float64(slices.Max(rss[1])-slices.Max(rss[0])) / 1e6
	fmt.Printf("\nGOMAXPROCS=%d: peak RSS seq %.1f MB, gopar %.1f MB, %+.1f MB (target <= +64 MB: %s)\n",
		procs, float64(slices.Max(rss[0]))/1e6, float64(slices.Max(rss[1]))/1e6, extra, pass(extra <= 64))
}
