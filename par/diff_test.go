package par_test

// A randomized differential test of par against a sequential model written
// from the documentation. Each case is derived from one seed: a source, a
// chain of adapters with settings among them, a terminal operation, and
// the failures injected into its callbacks. Every callback counts its calls
// per source item, so the checks see what ran as well as what came back.
//
//	go test ./par -run 'TestDifferential$' -difftime 10m   # a longer run
//	go test ./par -run 'TestDifferential$' -diffseed N -v  # replay one case

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/types"
	goiter "iter"
	"math/bits"
	"math/rand/v2"
	goruntime "runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

var (
	diffTime = flag.Duration("difftime", 0, "how long TestDifferential generates cases (0: about 8s with GOPAR_TEST_LONG=1, 2s without)")
	diffSeed = flag.Uint64("diffseed", 0, "run only the TestDifferential case of this seed, and print its pipeline")
)

// diffMaxReports bounds the failing cases reported in full; the rest are
// counted in the summary.
const diffMaxReports = 25

// TestDifferential runs generated pipelines against the model until its
// time budget is spent (see the flags above) and logs how many ran.
func TestDifferential(t *testing.T) {
	diffCheckCoverage(t)
	diffSpillDir = t.TempDir()
	defer func() { diffSpillDir = "" }()
	settleDefaultPool(t) // checkPulls reads its size after each case
	pools := diffPools(t)
	if *diffSeed != 0 {
		c := newDiffCase(*diffSeed, pools)
		t.Logf("seed %d: %s", c.seed, c.desc)
		c.runAndCheck(t, true)
		return
	}
	budget := *diffTime
	if budget == 0 {
		budget = long.Pick(8*time.Second, 2*time.Second)
	}
	base := rand.Uint64()>>1 + 1
	start := time.Now()
	cases, failed := 0, 0
	perTerm, perKind := map[string]int{}, map[string]int{}
	tags := map[string][]uint64{}
	for seed := base; time.Since(start) < budget; seed++ {
		c := newDiffCase(seed, pools)
		cases++
		perTerm[c.term.name]++
		perKind[c.kind]++
		if !c.runAndCheck(t, failed < diffMaxReports) {
			failed++
			for _, tag := range c.tags() {
				tags[tag] = append(tags[tag], seed)
			}
		}
	}
	took := time.Since(start)
	t.Logf("%d cases in %v (%.0f a second), %d failed; seeds from %d", cases, took.Round(time.Millisecond),
		float64(cases)/took.Seconds(), failed, base)
	t.Logf("cases per terminal operation: %v", perTerm)
	t.Logf("cases per injection (none: \"\"): %v", perKind)
	for tag, seeds := range tags {
		t.Logf("failures tagged %q: %d cases, e.g. seeds %v", tag, len(seeds), seeds[:min(len(seeds), 5)])
	}
}

// TestDifferentialKnownBugs holds two failures that the random cases find,
// as fixed cases.
func TestDifferentialKnownBugs(t *testing.T) {
	// TryMap over FromSeq returns every result and no error when nothing
	// failed and no item was left out, with or without a context.
	t.Run("TryMapFromSeq", func(t *testing.T) {
		xs := []int{1, 2, 3, 4, 5}
		want := []int{10, 20, 30, 40, 50}
		ten := func(x int) (int, error) { return 10 * x, nil }
		got, err := par.TryMap(par.FromSeq(slices.Values(xs)).WithContext(context.Background()), ten)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("TryMap(FromSeq.WithContext(Background)) = %v, %v; want %v, nil", got, err, want)
		}
		got, err = par.TryMapContext(par.FromSeq(slices.Values(xs)), func(_ context.Context, x int) (int, error) { return 10 * x, nil })
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("TryMapContext(FromSeq) = %v, %v; want %v, nil", got, err, want)
		}
		got, err = par.TryMap(par.FromSeq(slices.Values([]int{})).WithContext(context.Background()), ten)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("TryMap(empty FromSeq.WithContext(Background)) = %#v, %v; want an empty non-nil slice, nil", got, err)
		}
	})
	// A cancelled Collect returns the results of a prefix of the source:
	// none under a context done before it starts, never zeros in place of
	// the items that did not run.
	t.Run("CollectCancelled", func(t *testing.T) {
		done, cancel := context.WithCancel(context.Background())
		cancel()
		if got := par.Range(0, 5).WithContext(done).Collect(); got == nil || len(got) != 0 {
			t.Errorf("Range(0, 5).WithContext(done).Collect() = %#v, want an empty non-nil slice", got)
		}
		ctx, cancel2 := context.WithCancel(context.Background())
		defer cancel2()
		f := func(x int) int {
			if x == 50_000 {
				cancel2()
			}
			return 2 * x
		}
		got := par.Range(1, 100_001).Map(f).WithContext(ctx).Collect()
		for i, v := range got {
			if v != 2*(i+1) {
				t.Errorf("Collect cancelled at item 50,000: %d items, element %d is %d, want %d (a prefix of the full result)", len(got), i, v, 2*(i+1))
				break
			}
		}
	})
}

// ---- Coverage: every operation of par has a model here. ----

// The generator's tables name the API each entry exercises; diffNotPipeline
// names the exported functions that build no pipeline.
var diffNotPipeline = []string{
	"Join", "JoinAll", "JoinFunc", "Scope", "Group.Go", "TryScope", "TryGroup.Go", "NewPool", "DefaultPool",
	"TryScopeCollect", "CollectGroup.Go", "CollectGroup.Emit",
	"Sort", "SortFunc", "SortStableFunc", "ScanInclusive", "ScanExclusive", "ScanSumInclusive", "ScanSumExclusive",
	"EntrySize", "EntryCodec", // options of the Sorted operations (sorted_test.go)
}

var diffSources = [][]string{{"Range"}, {"Slice"}, {"Numbers"}, {"FromSeq"}, {"FromChan"}, {"FromSeq2"}, {"Chunks"},
	{"FromWalk", "FromWalkContext", "FromSeqErr", "Iter.Err"}} // sources that never fail: Err stays nil (their failures: walk_test.go)

// diffOwnModel names the sources of records whose items are not this
// test's ints, each compared with its own sequential model: bufio.Scanner
// (par/lines_test.go, FuzzLines). They build the FlatMap form that this
// test's pipelines cover.
var diffOwnModel = []string{"Lines", "LinesString", "Split", "ReadLines"}

var diffAdapters = [][]string{
	{"Iter.Map", "Nums.Map"}, {"Iter.Filter", "Nums.Filter"}, {"Map"}, {"FilterMap", "Iter.FilterMap"}, {"FlatMap", "Iter.FlatMap"},
	{"MapInit", "Iter.MapInit"}, // the Iter methods: Go 1.27's forms of the functions (chain.go, chain_test.go)
	// The index adapters (adapters.go): steps of the chain with a model of
	// their own (diffOp). Iter.ZipWith is Go 1.27's method (chain_index.go).
	{"Iter.Take", "Nums.Take", "Ints.Take"}, {"Iter.Skip", "Nums.Skip", "Ints.Skip"}, {"Enumerate"},
	{"Chain", "Iter.Chain", "Nums.Chain"}, {"Zip", "ZipWith", "Iter.ZipWith"},
}

var diffSettings = [][]string{
	{"Iter.WithPool", "Nums.WithPool", "Ints.WithPool"},
	{"Iter.WithContext", "Nums.WithContext", "Ints.WithContext"},
	{"Iter.WithBlockSize", "Nums.WithBlockSize", "Ints.WithBlockSize"},
	{"Iter.Blocking", "Nums.Blocking", "Ints.Blocking"},
	{"Iter.WithProgress", "Nums.WithProgress", "Ints.WithProgress"},
	{"Iter.WithTimeline", "Nums.WithTimeline", "Ints.WithTimeline"},
	{"Iter.WithStats", "Nums.WithStats", "Ints.WithStats"},
	{"Iter.WithSlow", "Nums.WithSlow", "Ints.WithSlow"},
	{"Iter.WithBuffer", "Nums.WithBuffer", "Ints.WithBuffer"},
	{"Iter.Unordered", "Nums.Unordered", "Ints.Unordered"},
	{"Iter.WithMemory", "Nums.WithMemory", "Ints.WithMemory"},
	{"Iter.WithTempDir", "Nums.WithTempDir", "Ints.WithTempDir"},
}

// diffCheckCoverage fails naming every exported method of Iter, Nums and
// Ints and every exported function of par (its non-test source, and
// mapInitAPI's list) that no table of this test models.
func diffCheckCoverage(t *testing.T) {
	known := map[string]bool{}
	for _, name := range slices.Concat(diffNotPipeline, diffOwnModel) {
		known[name] = true
	}
	for _, table := range [][][]string{diffSources, diffAdapters, diffSettings} {
		for _, names := range table {
			for _, name := range names {
				known[name] = true
			}
		}
	}
	for _, term := range diffTerms {
		for _, name := range term.api {
			known[name] = true
		}
	}
	names := mapInitAPI(t)
	for _, fn := range exportedFuncs(t) {
		name := fn.Name.Name
		if fn.Recv != nil {
			recv, _, _ := strings.Cut(types.ExprString(fn.Recv.List[0].Type), "[")
			name = strings.TrimPrefix(recv, "*") + "." + name
		}
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		if !known[name] {
			t.Errorf("%s has no model in TestDifferential: add it to a table of diff_test.go (or to diffNotPipeline)", name)
		}
	}
}

// diffPools makes the pools that cases run on besides the default one.
func diffPools(t *testing.T) []*par.Pool {
	var pools []*par.Pool
	for _, k := range []int{1, 2, 3, 4, 8, 32} {
		p, err := par.NewPool(k)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		pools = append(pools, p)
	}
	return pools
}

// ---- Terminal operations. ----

type diffTerm struct {
	name    string
	api     []string
	kind    int
	perItem bool // it has a callback per item: the last counted stage
	ctxForm bool // TryForEachContext, TryMapContext
	folds   bool // TryFold, TryReduce: a scalar result, the model's fold
	only    int  // the one source it takes, if not srcAny
	bare    bool // it takes no adapter
}

const (
	tkEffect = iota
	tkScalar
	tkList
	tkPartition
	tkSearch
	tkTry
	tkAllErr // ForEachErr, MapErr: every failure
	tkStream
	tkLen
	tkKeyed // GroupBy, CountBy, Distinct, ...: diff_keyed_test.go
)

const (
	srcAny = iota
	srcRange
	srcSlice
	srcNumbers
	srcSeq
	srcChunks
)

var diffTerms = []diffTerm{
	{name: "ForEach", api: []string{"Iter.ForEach"}, kind: tkEffect, perItem: true},
	{name: "ForEachIndex", api: []string{"Iter.ForEachIndex"}, kind: tkEffect, perItem: true},
	{name: "ForEachPtr", api: []string{"ForEachPtr"}, kind: tkEffect, perItem: true, only: srcSlice, bare: true},
	{name: "ForEachInit", api: []string{"ForEachInit", "Iter.ForEachInit"}, kind: tkEffect, perItem: true},
	{name: "Blocks", api: []string{"Ints.Blocks"}, kind: tkEffect, perItem: true, only: srcRange, bare: true},
	{name: "Reduce", api: []string{"Iter.Reduce"}, kind: tkScalar, perItem: true},
	{name: "Fold", api: []string{"Fold", "Iter.Fold"}, kind: tkScalar, perItem: true},
	{name: "ReduceBlocks", api: []string{"ReduceBlocks", "Ints.ReduceBlocks"}, kind: tkScalar, perItem: true, only: srcRange, bare: true},
	{name: "Sum", api: []string{"Sum", "Nums.Sum"}, kind: tkScalar},
	{name: "Count", api: []string{"Iter.Count"}, kind: tkScalar},
	{name: "Min", api: []string{"Min"}, kind: tkScalar},
	{name: "Max", api: []string{"Max"}, kind: tkScalar},
	{name: "MinFunc", api: []string{"MinFunc"}, kind: tkScalar},
	{name: "MaxFunc", api: []string{"MaxFunc"}, kind: tkScalar},
	{name: "Collect", api: []string{"Iter.Collect"}, kind: tkList},
	{name: "Partition", api: []string{"Iter.Partition"}, kind: tkPartition, perItem: true},
	{name: "Any", api: []string{"Iter.Any"}, kind: tkSearch, perItem: true},
	{name: "Every", api: []string{"Iter.Every"}, kind: tkSearch, perItem: true},
	{name: "Find", api: []string{"Iter.Find"}, kind: tkSearch, perItem: true},
	{name: "FindFirst", api: []string{"Iter.FindFirst"}, kind: tkSearch, perItem: true},
	{name: "TryForEach", api: []string{"Iter.TryForEach"}, kind: tkTry, perItem: true},
	{name: "TryForEachContext", api: []string{"Iter.TryForEachContext"}, kind: tkTry, perItem: true, ctxForm: true},
	{name: "TryMap", api: []string{"TryMap", "Iter.TryMap"}, kind: tkTry, perItem: true},
	{name: "TryMapContext", api: []string{"TryMapContext", "Iter.TryMapContext"}, kind: tkTry, perItem: true, ctxForm: true},
	{name: "TryMapInit", api: []string{"TryMapInit", "Iter.TryMapInit"}, kind: tkTry, perItem: true},
	{name: "TryForEachInit", api: []string{"TryForEachInit", "Iter.TryForEachInit"}, kind: tkTry, perItem: true},
	{name: "TryFold", api: []string{"TryFold", "Iter.TryFold", "TryFoldMerge", "Iter.TryFoldMerge"}, kind: tkTry, perItem: true, folds: true},
	{name: "TryReduce", api: []string{"Iter.TryReduce"}, kind: tkTry, perItem: true, folds: true},
	{name: "ForEachErr", api: []string{"Iter.ForEachErr", "ItemError.Error", "ItemError.Unwrap", "Unfinished.Error", "Unfinished.Unwrap", "Unfinished.Left", "Unfinished.LeftCount"}, kind: tkAllErr, perItem: true},
	{name: "MapErr", api: []string{"MapErr", "Iter.MapErr"}, kind: tkAllErr, perItem: true},
	{name: "Values", api: []string{"Iter.Values"}, kind: tkStream},
	{name: "All", api: []string{"Iter.All"}, kind: tkStream},
	{name: "Results", api: []string{"Results", "Iter.Results"}, kind: tkStream},
	{name: "Len", api: []string{"Iter.Len"}, kind: tkLen},
	{name: "GroupBy", api: []string{"GroupBy", "Iter.GroupBy"}, kind: tkKeyed, perItem: true},
	{name: "GroupByKey", api: []string{"GroupByKey", "Iter.GroupByKey"}, kind: tkKeyed, perItem: true},
	{name: "ReduceByKey", api: []string{"ReduceByKey", "Iter.ReduceByKey"}, kind: tkKeyed, perItem: true},
	{name: "CountBy", api: []string{"CountBy", "Iter.CountBy"}, kind: tkKeyed, perItem: true},
	{name: "CollectMap", api: []string{"CollectMap", "Iter.CollectMap"}, kind: tkKeyed, perItem: true},
	{name: "Counts", api: []string{"Counts"}, kind: tkKeyed},
	{name: "CountBySorted", api: []string{"CountBySorted", "Iter.CountBySorted", "Sorted.All", "Sorted.Err"}, kind: tkKeyed, perItem: true},
	{name: "ReduceByKeySorted", api: []string{"ReduceByKeySorted", "Iter.ReduceByKeySorted"}, kind: tkKeyed, perItem: true},
	{name: "GroupBySorted", api: []string{"GroupBySorted", "Iter.GroupBySorted"}, kind: tkKeyed, perItem: true},
	{name: "DistinctSorted", api: []string{"DistinctSorted", "Sorted.Keys"}, kind: tkKeyed},
	{name: "Distinct", api: []string{"Distinct"}, kind: tkKeyed},
}

// ---- Items and stages. ----

// An item is lo + i + payload<<diffShift for source item i: every stage
// can tell which source item it came from, and the payload is what the
// stages change. Source items have payload 0, so Range, Slice and FromSeq
// give the same items.
const (
	diffShift = 20
	diffMask  = 1<<diffShift - 1
)

// The stage kinds: each counted callback of the pipeline is one stage.
const (
	stMap       = iota // Iter.Map / Nums.Map: payload g
	stFilter           // Iter.Filter / Nums.Filter
	stFilterMap        // par.FilterMap: keep, then g
	stFlatMap          // par.FlatMap: 0..a items
	stMapInit          // par.MapInit: g, with a state per goroutine
	stTo               // par.Map to int64 or string (the payload kept) ...
	stFrom             // ... and par.Map back: g
	stChunk            // Chunks' chunk to its item
	stTerm             // the terminal operation's callback
	stPos              // the Map back from Enumerate's or Zip's pairs: payload pos(p, position)
	stSelf             // the Map back from the pairs of Zip of the pipeline with itself: g
)

type diffStage struct {
	kind    int
	a, b, k int // g(i, p) = (p*a + i%b + k) % 1000; FlatMap gives up to a items
	ka, kb  int // keep(i, p): mix(i, p, k) % kb < ka
	str     bool
	name    string
}

func diffMix(i, p, salt int) uint64 {
	x := uint64(i)*0x9E3779B97F4A7C15 ^ uint64(p)*0xBF58476D1CE4E5B9 ^ uint64(salt)
	x ^= x >> 31
	x *= 0x94D049BB133111EB
	return x ^ x>>29
}

func (st *diffStage) g(i, p int) int     { return (p*st.a + i%st.b + st.k) % 1000 }
func (st *diffStage) keep(i, p int) bool { return diffMix(i, p, st.k)%uint64(st.kb) < uint64(st.ka) }
func (st *diffStage) fan(i, p int) int   { return int(diffMix(i, p, st.k+1) % uint64(st.a+1)) }
func (st *diffStage) pos(p, k int) int   { return (p + 7*k + st.k) % 1000 }

// out appends the payloads that the stage gives for payload p of source
// item i: the model of one call.
func (st *diffStage) out(i, p int, dst []int) []int {
	switch st.kind {
	case stMap, stMapInit, stFrom, stSelf:
		return append(dst, st.g(i, p))
	case stFilter:
		if st.keep(i, p) {
			dst = append(dst, p)
		}
	case stFilterMap:
		if st.keep(i, p) {
			dst = append(dst, st.g(i, p))
		}
	case stFlatMap:
		for j := range st.fan(i, p) {
			dst = append(dst, (p+7*j+st.k)%1000)
		}
	default:
		dst = append(dst, p)
	}
	return dst
}

// The terminal operations that combine items use the composition of affine
// maps of 32-bit numbers, packed in an int: associative and not
// commutative, so a combination out of index order shows.
const diffIdentity = 1 << 32

func diffAffine(x int) int { return int(uint64(uint32(2*x+1))<<32 | uint64(uint32(x*40503+17))) }

func diffCompose(f, g int) int {
	af, bf, ag, bg := uint32(uint64(f)>>32), uint32(f), uint32(uint64(g)>>32), uint32(g)
	return int(uint64(af*ag)<<32 | uint64(ag*bf+bg))
}

type diffScalar struct {
	v  int
	ok bool
}

type (
	diffPanic    struct{ stage, item int }
	diffSeqPanic struct{ at int }
	diffError    struct{ item int }
	diffState    struct{ busy atomic.Bool }
)

func (e *diffError) Error() string { return fmt.Sprintf("injected error of item %d", e.item) }

var diffCause = errors.New("injected cancellation")

// The injected actions, by stage and source item.
const (
	actPanic = iota + 1
	actGoexit
	actCancel
	actReenter
)

// diffStep is one step of the chain after the source: an adapter (its
// first stage), a setting, or an index adapter (op, with the stage that
// maps its pairs back, if any).
type diffStep struct {
	stage   int
	setting string
	op      *diffOp
}

// The index adapters.
const (
	opTake    = iota // Take(n)
	opSkip           // Skip(n)
	opChain          // Take(n).Chain(Skip(n)), or a Chain with an empty side
	opEnum           // Enumerate, and stPos
	opZip            // Zip (or ZipWith) with a Range(0, n) or a FromSeq of n positions, and stPos
	opZipSelf        // Zip (or ZipWith) of the pipeline with itself, and stSelf
)

// diffOp is an index adapter in the chain, and what the model needs of it.
type diffOp struct {
	kind     int
	n        int  // Take's and Skip's count, the Chain's split, the other side's length of Zip
	split    bool // opChain: Take(n).Chain(Skip(n)); else a Chain with an empty side
	variant  int  // which form: method or function, which side, which other source
	exact    bool // the pipeline before it has every item at its own position (no filter, no seq)
	restream bool // its result is a stream (adapters.go)
	name     string
}

// ---- A case. ----

type diffCase struct {
	seed uint64
	desc string
	kind string // what is injected
	term *diffTerm

	src       int
	n, lo, hi int // hi: Range's (below lo for some empty ranges)
	chunk     int // Chunks' size, over chunkLen items
	chunkLen  int
	xs        []int
	seqKind   int // 0: counting, 1: calls yield again after false, 2: slices.Values, 3: FromChan, 4: FromSeq2, 5, 6, 7: counting through FromWalk, FromSeqErr, FromWalkContext
	// stopProducer ends FromChan's producer goroutine (seqKind 3).
	stopProducer func()
	method       bool
	shorthand    bool
	salt, mod    int // the searches' and Partition's predicate: mix % mod == 0

	stages    []diffStage
	chain     []diffStep
	termStage int

	pool               *par.Pool
	ctx                context.Context
	cancel             context.CancelCauseFunc
	minBlock, maxBlock int
	blocking, buffer   int
	progress           bool
	unordered          bool // Unordered: Fold and Reduce, and Blocking's Values and All, drop source order
	timeline           *par.Timeline
	stats              *par.Stats
	slowAfter          time.Duration // WithSlow's: the hook counts its calls in slowCalls
	slowCalls          atomic.Int32
	memory             int64 // WithMemory's budget, with WithTempDir(diffSpillDir, 0)

	inj         []map[int]int
	errAt       map[int]bool
	precancel   bool
	seqCancelAt int
	seqPanicAt  int
	breakAt     int
	reenterDone bool
	injDesc     string

	flat  []int     // the model's items, in order
	start []int     // source item i gives flat[start[i]:start[i+1]]
	exp   [][]int32 // exp[s][i]: the model's calls of stage s for source item i

	// The index adapters: lax[s][i] says that stage s may run fewer times
	// than exp[s][i] for source item i (work ahead of a Take or a Zip
	// over a stream, which may stop before it). seqLike: the pipeline is
	// a stream (a seq source, or an adapter made one), filt: a stage may
	// drop or add items; streams and zipSelf count the adapters that made
	// a stream and the Zips of the pipeline with itself; posOf holds the
	// positions (ForEachIndex's) of each item given, idxLo and idxN the
	// final range of positions (its length over a stream: the items of the
	// last adapter that made it).
	lax                   [][]bool
	seqLike, filt, hasFlt bool
	streams, zipSelf      int
	posOf, posOfItem      map[int][]int
	idxLo, idxN           int
	// tailUncounted: no counted stage follows the last adapter that made
	// a stream; headUncounted: no counted stage runs before one (since the
	// source or the one before). A done context may then cut the items
	// there with no callback to tell (uncertain).
	tailUncounted, headUncounted bool
	// restreamIn holds, for each adapter that made a stream of a stream,
	// the source items of the items it takes in, in order: what its buffer
	// of n of those items spans at the source (R4).
	restreamIn [][]int

	calls                    [][]atomic.Int32
	inflight, maxInflight    atomic.Int32
	pulled                   atomic.Int64
	yieldFalse               atomic.Bool
	reentered, reenterPanics atomic.Int32
	inits                    []atomic.Int32 // by stage: MapInit's, ForEachInit's
	seqIter                  par.Iter[int]
	progBusy                 atomic.Bool

	mu   sync.Mutex
	prog [][2]int
	errs []string
}

func newDiffCase(seed uint64, pools []*par.Pool) *diffCase {
	c := &diffCase{seed: seed, termStage: -1, seqCancelAt: -1, seqPanicAt: -1}
	rng := rand.New(rand.NewPCG(seed, seed^0x5851F42D4C957F2D))
	c.term = &diffTerms[rng.IntN(len(diffTerms))]
	c.salt, c.mod = rng.IntN(1000), []int{1, 2, 7, 40, 1 << 40}[rng.IntN(5)]

	big := 50_000 / race.Scale
	switch r := rng.IntN(100); {
	case r < 5:
	case r < 10:
		c.n = 1
	case r < 82:
		c.n = rng.IntN(201)
	case r < 97:
		c.n = 1000 + rng.IntN(4000/race.Scale)
	default:
		c.n = big
	}
	switch r := rng.IntN(10); {
	case r < 5:
	case r < 8:
		c.lo = rng.IntN(2001) - 1000
	default:
		c.lo = rng.IntN(1<<36) - 1<<35
	}

	// The source.
	c.src = c.term.only
	if c.src == srcAny {
		c.src = []int{srcRange, srcRange, srcRange, srcSlice, srcSlice, srcNumbers, srcSeq, srcSeq, srcSeq, srcChunks}[rng.IntN(10)]
	}
	c.hi = c.lo + c.n
	if c.src == srcRange && c.n == 0 {
		c.hi -= rng.IntN(3)
	}
	if c.src == srcSeq {
		c.seqKind = []int{0, 0, 0, 1, 2, 3, 4, 5, 6, 7}[rng.IntN(10)]
	}
	if c.src == srcChunks {
		c.chunk = 1 + rng.IntN(5)
		c.addStage(diffStage{kind: stChunk, name: "Map(chunk->item)"})
	}
	c.xs = make([]int, c.n)
	for i := range c.xs {
		c.xs[i] = c.lo + i
	}
	c.method = rng.IntN(2) == 0

	// The adapters, then the terminal operation's own stage.
	if !c.term.bare {
		flats := 0
		for range rng.IntN(5) {
			c.addAdapter(rng, &flats)
		}
	}
	if c.term.perItem {
		c.termStage = c.addStage(diffStage{kind: stTerm, name: c.term.name})
	}

	// The injection's kind, which may need a context.
	kind := c.pickKind(rng)
	c.kind = kind
	c.pickSettings(rng, pools, kind == "cancel" || kind == "precancel")
	if c.src == srcChunks && c.n > 0 {
		c.chunkLen = c.n*c.chunk - rng.IntN(c.chunk)
	}
	c.model()
	c.inject(rng, kind)
	c.describe()
	return c
}

func (c *diffCase) addStage(st diffStage) int {
	c.stages = append(c.stages, st)
	return len(c.stages) - 1
}

func (c *diffCase) addAdapter(rng *rand.Rand, flats *int) {
	if rng.IntN(4) == 0 {
		c.addIndexOp(rng)
		return
	}
	defer func() {
		switch c.stages[len(c.stages)-1].kind {
		case stFilter, stFilterMap:
			c.filt = true
		case stFlatMap:
			c.filt, c.hasFlt = true, true
		}
	}()
	st := diffStage{a: rng.IntN(7) - 3, b: 1 + rng.IntN(9), k: rng.IntN(101) - 50}
	st.kb = []int{1, 2, 3, 5}[rng.IntN(4)]
	st.ka = rng.IntN(st.kb + 1)
	g := fmt.Sprintf("p*%d+i%%%d%+d", st.a, st.b, st.k)
	keep := fmt.Sprintf("h%%%d<%d", st.kb, st.ka)
	switch r := rng.IntN(100); {
	case r < 25:
		st.kind, st.name = stMap, "Map("+g+")"
	case r < 50:
		st.kind, st.name = stFilter, "Filter("+keep+")"
	case r < 60:
		st.str = rng.IntN(2) == 0
		to := "int64"
		if st.str {
			to = "string"
		}
		s := c.addStage(diffStage{kind: stTo, str: st.str, name: "par.Map(->" + to + ")"})
		st.kind, st.name = stFrom, "par.Map("+to+"->, "+g+")"
		c.addStage(st)
		c.chain = append(c.chain, diffStep{stage: s})
		return
	case r < 72:
		st.kind, st.name = stFilterMap, "par.FilterMap("+keep+", "+g+")"
	case r < 85 && *flats < 2:
		*flats++
		st.a = rng.IntN(4)
		st.kind, st.name = stFlatMap, fmt.Sprintf("par.FlatMap(0..%d)", st.a)
	default:
		st.kind, st.name = stMapInit, "par.MapInit("+g+")"
	}
	c.chain = append(c.chain, diffStep{stage: c.addStage(st)})
}

// addIndexOp adds an index adapter: its count is taken around the source's
// length, where the cases that matter lie (none, one, all, one more).
func (c *diffCase) addIndexOp(rng *rand.Rand) {
	n := c.n
	c.seqLike = c.seqLike || c.src == srcSeq
	count := func() int { return []int{0, 1, n / 2, max(n-1, 0), n, n + 1, rng.IntN(2*n + 3)}[rng.IntN(7)] }
	op := &diffOp{exact: !c.seqLike && !c.filt, variant: rng.IntN(4)}
	kinds := []int{opTake, opTake, opSkip, opSkip, opChain, opEnum, opZip}
	if op.exact {
		kinds = append(kinds, opZipSelf)
	}
	op.kind = kinds[rng.IntN(len(kinds))]
	st := diffStage{a: rng.IntN(7) - 3, b: 1 + rng.IntN(9), k: rng.IntN(101) - 50}
	stage := -1
	switch op.kind {
	case opTake, opSkip:
		op.n = count()
		op.restream = !op.exact
		op.name = fmt.Sprintf([]string{"Take(%d)", "Skip(%d)"}[op.kind], op.n)
	case opChain:
		op.split = op.exact && rng.IntN(2) == 0
		if op.split {
			op.n = count()
			op.name = fmt.Sprintf([]string{"Take(%d).Chain(it.Skip(%d))", "par.Chain(it.Take(%d), it.Skip(%d))"}[op.variant%2], op.n, op.n)
		} else {
			op.restream = c.seqLike || op.variant == 2
			op.name = []string{"Chain(Slice(nil))", "Chain(Range(0, 0))", "Chain(FromSeq(nil))", "par.Chain(Slice(nil), .)"}[op.variant]
		}
	case opEnum:
		op.restream = !op.exact
		st.kind, st.name = stPos, fmt.Sprintf("par.Enumerate.Map(p+7*pos%+d)", st.k)
		op.name = st.name // the description prints the op's name
		stage = c.addStage(st)
	case opZip:
		op.n = count()
		op.restream = !op.exact || op.variant == 3
		op.name = fmt.Sprintf([]string{"par.Zip(., Range(0, %d))", "par.Zip(Range(0, %d), .)", "par.ZipWith(., Range(0, %d))",
			"par.Zip(., FromSeq(%d positions))"}[op.variant], op.n)
		st.kind, st.name = stPos, op.name+fmt.Sprintf(".Map(p+7*pos%+d)", st.k)
		stage = c.addStage(st)
	case opZipSelf:
		op.variant %= 2
		op.name = []string{"par.Zip(., .)", "par.ZipWith(., .)"}[op.variant]
		st.kind, st.name = stSelf, op.name+fmt.Sprintf(".Map(p*%d+i%%%d%+d)", st.a, st.b, st.k)
		stage = c.addStage(st)
		c.zipSelf++
	}
	if op.restream && c.hasFlt {
		// A stream's positions are its items: after a FlatMap they split
		// a source item's items, which the model's prefixes (by source
		// item) cannot tell (adapters_test.go has these pipelines).
		if stage >= 0 {
			c.stages = c.stages[:stage]
		}
		return
	}
	if op.restream {
		c.seqLike = true
		c.streams++
	}
	c.chain = append(c.chain, diffStep{stage: stage, op: op})
}

// pickKind chooses what to inject, among what the case allows.
func (c *diffCase) pickKind(rng *rand.Rand) string {
	counting := c.src == srcSeq && c.counted()
	canCtx := !c.term.bare || c.term.only == srcRange
	hasStage := len(c.stages) > 0
	switch r := rng.IntN(100); {
	case r < 30:
	case r < 42 && hasStage:
		return "panic"
	case r < 48 && hasStage:
		return "goexit"
	case r < 60 && canCtx && (hasStage || counting):
		return "cancel"
	case r < 66 && canCtx:
		return "precancel"
	case r >= 66 && (c.term.kind == tkTry || c.term.kind == tkAllErr):
		return "error"
	case r >= 66 && c.term.kind == tkStream:
		return "break"
	case r >= 66 && counting && hasStage && r < 85 && c.streams == 0:
		// (Over a stream that an adapter made, the seq's iterator is
		// free again once the adapter has pulled it to its end.)
		return "reenter"
	case r >= 66 && counting:
		return "seqpanic"
	}
	return ""
}

func (c *diffCase) pickSettings(rng *rand.Rand, pools []*par.Pool, needCtx bool) {
	if c.term.only == srcRange && !needCtx && rng.IntN(5) == 0 {
		c.shorthand = true // a bare par.Range: no settings
	}
	if c.term.name == "ForEachPtr" || c.shorthand {
		return
	}
	var sets []string
	if rng.IntN(2) == 0 {
		c.pool = pools[rng.IntN(len(pools))]
		sets = append(sets, "pool")
	}
	if needCtx || rng.IntN(4) == 0 {
		sets = append(sets, "ctx")
		c.ctx, c.cancel = context.WithCancelCause(context.Background())
	}
	if rng.IntN(4) == 0 {
		c.minBlock = []int{0, 1, 1 + rng.IntN(16)}[rng.IntN(3)]
		if rng.IntN(3) > 0 {
			c.maxBlock = max(c.minBlock, 1) + rng.IntN(32)
		}
		sets = append(sets, "block")
	}
	if c.term.only != srcRange && rng.IntN(7) == 0 {
		c.blocking = 1 + rng.IntN(8)
		sets = append(sets, "blocking")
		c.n = min(c.n, 5000/race.Scale)
		c.xs = c.xs[:c.n]
		c.hi = min(c.hi, c.lo+c.n)
	}
	if rng.IntN(5) == 0 {
		c.progress = true
		sets = append(sets, "progress")
	}
	if rng.IntN(7) == 0 {
		c.timeline = new(par.Timeline)
		sets = append(sets, "timeline")
	}
	if rng.IntN(7) == 0 {
		c.stats = new(par.Stats)
		sets = append(sets, "stats")
	}
	if rng.IntN(7) == 0 {
		c.slowAfter = []time.Duration{time.Nanosecond, 20 * time.Microsecond, time.Millisecond, time.Hour}[rng.IntN(4)]
		sets = append(sets, "slow")
	}
	if rng.IntN(6) == 0 {
		c.unordered = true
		sets = append(sets, "unordered")
	}
	if rng.IntN(10) == 0 || strings.HasSuffix(c.term.name, "Sorted") && rng.IntN(3) > 0 {
		// Budgets that spill every few keys, every few thousand, or never.
		c.memory = []int64{1, 4 << 10, 64 << 10, 1 << 30}[rng.IntN(4)]
		sets = append(sets, "memory")
	}
	if (c.term.kind == tkStream && rng.IntN(2) == 0) || rng.IntN(20) == 0 {
		c.buffer = []int{1, 2, 3, 8, 1 + rng.IntN(300)}[rng.IntN(5)]
		sets = append(sets, "buffer")
	}
	// Settings are kept by the adapters after them: they go anywhere.
	for _, s := range sets {
		at := rng.IntN(len(c.chain) + 1)
		c.chain = slices.Insert(c.chain, at, diffStep{stage: -1, setting: s})
	}
}

// diffRec is an item of the model: its source item, its payload, and its
// position (ForEachIndex's).
type diffRec struct{ i, p, pos int }

// model runs the pipeline sequentially: the items it gives, and how many
// calls each stage gets for each source item.
func (c *diffCase) model() {
	c.exp = make([][]int32, len(c.stages))
	c.lax = make([][]bool, len(c.stages))
	c.calls = make([][]atomic.Int32, len(c.stages))
	c.inj = make([]map[int]int, len(c.stages))
	c.inits = make([]atomic.Int32, len(c.stages))
	for s := range c.stages {
		c.exp[s] = make([]int32, c.n)
		c.lax[s] = make([]bool, c.n)
		c.calls[s] = make([]atomic.Int32, c.n)
	}
	recs := make([]diffRec, c.n)
	for i := range recs {
		recs[i] = diffRec{i, 0, i}
	}
	c.seqLike, c.idxN = c.src == srcSeq, c.n
	if c.src == srcRange {
		c.idxLo = c.lo
	}
	var applied []int // the stages so far
	segment := 0      // the stages since the source or the last adapter that made a stream
	stage := func(s int) {
		segment++
		var next []diffRec
		var out []int
		for k, r := range recs {
			c.exp[s][r.i]++
			if c.stages[s].kind == stPos {
				out = append(out[:0], c.stages[s].pos(r.p, k))
			} else {
				out = c.stages[s].out(r.i, r.p, out[:0])
			}
			for _, q := range out {
				next = append(next, diffRec{r.i, q, r.pos})
			}
		}
		recs = next
		applied = append(applied, s)
	}
	if c.src == srcChunks {
		stage(0)
	}
	for _, st := range c.chain {
		switch {
		case st.op != nil:
			if st.op.restream {
				in := make([]int, len(recs))
				for k, r := range recs {
					in[k] = r.i
				}
				c.restreamIn = append(c.restreamIn, in)
			}
			recs = c.modelOp(recs, st.op, applied)
			if st.op.restream {
				c.tailUncounted = true
				c.headUncounted = c.headUncounted || segment == 0
				segment = 0
			}
			if st.stage >= 0 {
				stage(st.stage)
				c.tailUncounted = false
			}
		case st.stage >= 0:
			stage(st.stage)
			c.tailUncounted = false
			if c.stages[st.stage].kind == stTo {
				stage(st.stage + 1)
			}
		}
	}
	if c.termStage >= 0 {
		stage(c.termStage)
		c.tailUncounted = false
	}
	c.flat, c.start = nil, make([]int, c.n+1)
	c.posOf, c.posOfItem = map[int][]int{}, map[int][]int{}
	k := 0
	for i := range c.n {
		c.start[i] = len(c.flat)
		for ; k < len(recs) && recs[k].i == i; k++ {
			x := c.enc(i, recs[k].p)
			c.flat = append(c.flat, x)
			c.posOf[x] = append(c.posOf[x], recs[k].pos)
			c.posOfItem[i] = append(c.posOfItem[i], recs[k].pos)
		}
	}
	c.start[c.n] = len(c.flat)
}

// modelOp applies an index adapter to the model's items. Over known
// positions, the items it leaves out never run: their calls so far are
// not made. Over a stream, the steps before it may have run ahead on the
// items after the last one Take or Zip keeps (lax), and Skip runs every
// item it drops. The positions after it are those of its items, but after
// a Chain that composes a filtered side, whose positions stay the sides'.
func (c *diffCase) modelOp(recs []diffRec, op *diffOp, applied []int) []diffRec {
	lo, hi := 0, len(recs)
	switch op.kind {
	case opTake, opZip:
		hi = min(op.n, len(recs))
	case opSkip:
		lo = min(op.n, len(recs))
	case opZipSelf:
		for _, s := range applied {
			for i := range c.exp[s] {
				c.exp[s][i] *= 2
			}
		}
	}
	// Over a stream, Take stops once it has its n items, and a Zip once
	// either side ends: the steps before them may or may not have run on
	// the items after the last one kept. A Zip pulls its second side
	// first, so where both sides have n items it stops at the end of the
	// second: the n positions, unless the pipeline is that side
	// (Zip(Range(0, n), .), variant 1), which then runs to its end.
	stops := op.kind == opTake && op.n <= len(recs) ||
		op.kind == opZip && (op.n < len(recs) || op.n == 0 || op.n == len(recs) && op.variant != 1)
	switch {
	case op.restream && stops:
		last := -1
		if hi > 0 {
			last = recs[hi-1].i
			if hi < len(recs) && recs[hi].i == last {
				last-- // its items after the cut may run or not
			}
		}
		for _, s := range applied {
			for i := last + 1; i < c.n; i++ {
				c.lax[s][i] = true
			}
		}
	case op.exact && !op.restream:
		for _, r := range slices.Concat(recs[:lo], recs[hi:]) {
			for _, s := range applied {
				c.exp[s][r.i] = 0
			}
		}
	}
	recs = recs[lo:hi]
	composed := op.kind == opChain && !op.split && !op.restream
	if !composed {
		for k := range recs {
			recs[k].pos = k
		}
	}
	switch {
	case op.restream:
		c.seqLike, c.idxLo, c.idxN = true, 0, len(recs)
	case op.kind == opTake:
		c.idxN = min(c.idxN, op.n)
	case op.kind == opSkip:
		d := min(op.n, c.idxN)
		c.idxLo, c.idxN = c.idxLo+d, c.idxN-d
	case op.kind == opZip:
		c.idxLo, c.idxN = 0, min(c.idxN, op.n)
	case op.kind == opChain || op.kind == opZipSelf:
		c.idxLo = 0
	}
	return recs
}

// inject places the injection of the given kind at source items chosen
// among those that reach the stage: the first, a middle one, the last.
func (c *diffCase) inject(rng *rand.Rand, kind string) {
	items := func(s, most int) []int {
		var reach []int
		for i := range c.n {
			if c.exp[s][i] > 0 {
				reach = append(reach, i)
			}
		}
		if len(reach) == 0 {
			if c.n == 0 {
				return nil
			}
			return []int{rng.IntN(c.n)}
		}
		cands := []int{reach[0], reach[len(reach)/2], reach[len(reach)-1], reach[rng.IntN(len(reach))]}
		var out []int
		for range 1 + rng.IntN(most) {
			out = append(out, cands[rng.IntN(len(cands))])
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	place := func(act int, name string, most int) {
		s := rng.IntN(len(c.stages))
		if c.termStage >= 0 && rng.IntN(3) == 0 {
			s = c.termStage
		}
		at := items(s, most)
		if c.inj[s] == nil {
			c.inj[s] = map[int]int{}
		}
		for _, i := range at {
			c.inj[s][i] = act
		}
		c.injDesc += fmt.Sprintf(" | %s #%d@%v", name, s, at)
	}
	switch kind {
	case "panic":
		place(actPanic, "panic", 3)
	case "goexit":
		place(actGoexit, "Goexit", 2)
	case "cancel":
		if len(c.stages) > 0 && (c.src != srcSeq || !c.counted() || rng.IntN(4) > 0) {
			place(actCancel, "cancel", 1)
		} else if c.n > 0 {
			c.seqCancelAt = rng.IntN(c.n)
			c.injDesc += fmt.Sprintf(" | cancel at pull %d", c.seqCancelAt)
		}
	case "precancel":
		c.precancel = true
		c.injDesc += " | cancelled before the start"
	case "error":
		c.errAt = map[int]bool{}
		at := items(c.termStage, 3)
		for _, i := range at {
			c.errAt[i] = true
		}
		c.injDesc += fmt.Sprintf(" | error #%d@%v", c.termStage, at)
		if rng.IntN(3) == 0 {
			if c.ctx == nil {
				c.ctx, c.cancel = context.WithCancelCause(context.Background())
				c.chain = append(c.chain, diffStep{stage: -1, setting: "ctx"})
			}
			place(actCancel, "cancel", 1)
		}
	case "break":
		c.breakAt = 1 + rng.IntN(len(c.flat)+2)
		c.injDesc += fmt.Sprintf(" | break after %d items", c.breakAt)
		if r := rng.IntN(3); r == 0 && len(c.stages) > 0 {
			place(actPanic, "panic", 2)
		} else if r == 1 && len(c.stages) > 0 && c.ctx != nil {
			place(actCancel, "cancel", 1)
		}
	case "reenter":
		c.reenterDone = rng.IntN(2) == 0
		place(actReenter, fmt.Sprintf("second operation (done context: %v)", c.reenterDone), 1)
	case "seqpanic":
		if c.n > 0 {
			c.seqPanicAt = rng.IntN(c.n)
			c.injDesc += fmt.Sprintf(" | seq panics at pull %d", c.seqPanicAt)
		}
	}
}

func (c *diffCase) describe() {
	var b strings.Builder
	switch c.src {
	case srcRange:
		fmt.Fprintf(&b, "Range(%d, %d)", c.lo, c.hi)
	case srcSlice:
		fmt.Fprintf(&b, "Slice(n=%d, lo=%d)", c.n, c.lo)
	case srcNumbers:
		fmt.Fprintf(&b, "Numbers(n=%d, lo=%d)", c.n, c.lo)
	case srcSeq:
		fmt.Fprintf(&b, "FromSeq(n=%d, lo=%d, %s)", c.n, c.lo, []string{"counting", "yields after false", "slices.Values", "FromChan", "FromSeq2(slices.All)",
			"FromWalk(counting)", "FromSeqErr(counting)", "FromWalkContext(counting)"}[c.seqKind])
	case srcChunks:
		fmt.Fprintf(&b, "Chunks(%d chunks of %d, lo=%d).Map#0(chunk->item)", c.n, c.chunk, c.lo)
	}
	for _, st := range c.chain {
		switch {
		case st.op != nil:
			fmt.Fprintf(&b, ".%s", st.op.name)
			if st.stage >= 0 {
				fmt.Fprintf(&b, "#%d", st.stage)
			}
		case st.stage >= 0 && c.stages[st.stage].kind == stTo:
			fmt.Fprintf(&b, ".%s#%d.%s#%d", c.stages[st.stage].name, st.stage, c.stages[st.stage+1].name, st.stage+1)
		case st.stage >= 0:
			fmt.Fprintf(&b, ".%s#%d", c.stages[st.stage].name, st.stage)
		default:
			b.WriteString(c.settingDesc(st.setting))
		}
	}
	fmt.Fprintf(&b, " => %s", c.term.name)
	if c.termStage >= 0 {
		fmt.Fprintf(&b, "#%d", c.termStage)
	}
	switch {
	case c.term.kind == tkSearch || c.term.name == "Partition":
		fmt.Fprintf(&b, "(h%%%d==0)", c.mod)
	case c.term.name == "Sum" && c.method:
		b.WriteString(" (the Nums method where the form has it)")
	case c.shorthand:
		b.WriteString(" (over a bare Range)")
	}
	b.WriteString(c.injDesc)
	c.desc = b.String()
}

func (c *diffCase) settingDesc(s string) string {
	switch s {
	case "pool":
		return fmt.Sprintf(".WithPool(%d workers)", c.pool.Workers())
	case "ctx":
		return ".WithContext(ctx)"
	case "block":
		return fmt.Sprintf(".WithBlockSize(%d, %d)", c.minBlock, c.maxBlock)
	case "blocking":
		return fmt.Sprintf(".Blocking(%d)", c.blocking)
	case "progress":
		return ".WithProgress"
	case "timeline":
		return ".WithTimeline"
	case "stats":
		return ".WithStats"
	case "slow":
		return fmt.Sprintf(".WithSlow(%v)", c.slowAfter)
	case "unordered":
		return ".Unordered()"
	case "memory":
		return fmt.Sprintf(".WithMemory(%d).WithTempDir(dir, 0)", c.memory)
	}
	return fmt.Sprintf(".WithBuffer(%d)", c.buffer)
}

// ---- Instrumentation: every callback counts its calls per source item. ----

func (c *diffCase) enc(i, p int) int { return c.lo + i + p<<diffShift }

func (c *diffCase) failf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.errs) < 10 {
		c.errs = append(c.errs, fmt.Sprintf(format, args...))
	}
}

// enter records a call of stage s on item v (leave must be deferred
// before it) and runs what is injected there; it returns v's source item
// and payload, or -1 for an item no source item gives.
func (c *diffCase) enter(s, v int) (i, p int) {
	d := v - c.lo
	i, p = d&diffMask, d>>diffShift
	if i >= c.n {
		c.inflight.Add(1)
		c.failf("model: stage %d got item %d, which no source item gives", s, v)
		return -1, 0
	}
	c.enterItem(s, i)
	return i, p
}

func (c *diffCase) enterItem(s, i int) {
	in := c.inflight.Add(1)
	for m := c.maxInflight.Load(); in > m && !c.maxInflight.CompareAndSwap(m, in); m = c.maxInflight.Load() {
	}
	c.calls[s][i].Add(1)
	if c.blocking > 0 {
		goruntime.Gosched() // lets more calls overlap, for the limit's check
	}
	switch c.inj[s][i] {
	case actPanic:
		panic(diffPanic{s, i})
	case actGoexit:
		goruntime.Goexit()
	case actCancel:
		c.cancel(diffCause)
	case actReenter:
		c.reenter()
	}
}

func (c *diffCase) leave() { c.inflight.Add(-1) }

// item is one counted call of stage s on item v, for the block bodies.
func (c *diffCase) item(s, v int) {
	defer c.leave()
	c.enter(s, v)
}

// reenter starts a second terminal operation on the FromSeq iterator of
// the one running, which panics (R5), also under a done context.
func (c *diffCase) reenter() {
	c.reentered.Add(1)
	defer func() {
		if recover() != nil {
			c.reenterPanics.Add(1)
		}
	}()
	it := c.seqIter
	if c.reenterDone {
		done, cancel := context.WithCancel(context.Background())
		cancel()
		it = it.WithContext(done)
	}
	it.Count()
}

func (c *diffCase) errFor(i int) error {
	if i >= 0 && c.errAt[i] {
		return &diffError{i}
	}
	return nil
}

func (c *diffCase) match(v int) bool {
	d := v - c.lo
	return diffMix(d&diffMask, d>>diffShift, c.salt)%uint64(c.mod) == 0
}

func (c *diffCase) key(v int) int { return ((v-c.lo)>>diffShift%5 + 5) % 5 }

func (c *diffCase) cmpKey(a, b int) int { return cmp.Compare(c.key(a), c.key(b)) }

// newState is the init of stage s.
func (c *diffCase) newState(s int) func() *diffState {
	return func() *diffState {
		c.inits[s].Add(1)
		return &diffState{}
	}
}

// use marks a state in use by a call until the function it returns runs:
// a state used by two calls at once is a failure.
func (c *diffCase) use(st *diffState) func() {
	if !st.busy.CompareAndSwap(false, true) {
		c.failf("MapInit: a state is used by two calls at once")
	}
	return func() { st.busy.Store(false) }
}

func (c *diffCase) report(done, total int) {
	if !c.progBusy.CompareAndSwap(false, true) {
		c.failf("progress: two calls of report at once")
		return
	}
	c.mu.Lock()
	c.prog = append(c.prog, [2]int{done, total})
	c.mu.Unlock()
	c.progBusy.Store(false)
}

// block checks a sub-range handed to a block body.
func (c *diffCase) block(lo, hi int) {
	if lo >= hi || lo < c.lo || hi > c.lo+c.n {
		c.failf("model: block [%d, %d) is empty or outside the range [%d, %d)", lo, hi, c.lo, c.lo+c.n)
	}
	if c.maxBlock > 0 && hi-lo > c.maxBlock {
		c.failf("block size: block [%d, %d) is longer than WithBlockSize's max %d", lo, hi, c.maxBlock)
	}
}

// seq is the counting sequence of FromSeq: it counts the items pulled,
// cancels or panics where injected, and (seqKind 1) calls yield once more
// after yield returned false.
func (c *diffCase) seq() goiter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range c.n {
			c.pulled.Add(1)
			if i == c.seqPanicAt {
				panic(diffSeqPanic{i})
			}
			if i == c.seqCancelAt {
				c.cancel(diffCause)
			}
			if !yield(c.lo + i) {
				if c.seqKind == 1 {
					c.yieldFalse.Store(true)
					yield(c.lo + i)
				}
				return
			}
		}
	}
}

// ---- Building and running the pipeline. ----

const (
	formIter = iota
	formNums
	formInts
)

// diffPipe is the pipeline in the form it has, so that the methods of Nums
// and Ints are the ones called where they exist.
type diffPipe struct {
	form int
	it   par.Iter[int]
	nums par.Nums[int]
	ints par.Ints
}

func (p diffPipe) iter() par.Iter[int] {
	switch p.form {
	case formInts:
		return p.ints.Iter
	case formNums:
		return p.nums.Iter
	}
	return p.it
}

func (p diffPipe) iterator() par.Iterator[int] {
	switch p.form {
	case formInts:
		return p.ints
	case formNums:
		return p.nums
	}
	return p.it
}

func (p diffPipe) numsOf() par.Nums[int] {
	switch p.form {
	case formInts:
		return p.ints.Nums
	case formNums:
		return p.nums
	}
	return par.Nums[int]{Iter: p.it}
}

func diffIter(it par.Iter[int]) diffPipe { return diffPipe{it: it} }

// counted reports whether the source is the test's own counting seq.
func (c *diffCase) counted() bool { return c.seqKind < 2 || c.seqKind >= 5 }

func (c *diffCase) build() diffPipe {
	var p diffPipe
	switch c.src {
	case srcRange:
		p = diffPipe{form: formInts, ints: par.Range(c.lo, c.hi)}
	case srcSlice:
		p = diffIter(par.Slice(c.xs))
	case srcNumbers:
		p = diffPipe{form: formNums, nums: par.Numbers(c.xs)}
	case srcSeq:
		switch c.seqKind {
		case 2:
			p = diffIter(par.FromSeq(slices.Values(c.xs)))
		case 3:
			ch, stop := make(chan int, 1+c.n%8), make(chan struct{})
			go func() {
				defer close(ch)
				for _, x := range c.xs {
					select {
					case ch <- x:
					case <-stop:
						return
					}
				}
			}()
			c.stopProducer = func() { close(stop) }
			p = diffIter(par.FromChan(ch))
		case 4:
			p = diffIter(par.Map(par.FromSeq2(slices.All(c.xs)), func(kv par.Pair[int, int]) int { return kv.Value }))
		case 5:
			// The counting seq as a walk that never fails: FromSeq's model.
			c.seqIter = par.FromWalk(func(yield func(int) error) error {
				for v := range c.seq() {
					if err := yield(v); err != nil {
						return err
					}
				}
				return nil
			})
			p = diffIter(c.seqIter)
		case 7:
			// The same walk, with the operation's context: it must not end
			// before the walk has seen the stop, nor change the items.
			c.seqIter = par.FromWalkContext(func(ctx context.Context, yield func(int) error) error {
				for v := range c.seq() {
					if err := yield(v); err != nil {
						return err
					}
				}
				return nil
			})
			p = diffIter(c.seqIter)
		case 6:
			c.seqIter = par.FromSeqErr(func(yield func(int, error) bool) {
				for v := range c.seq() {
					if !yield(v, nil) {
						return
					}
				}
			})
			p = diffIter(c.seqIter)
		default:
			c.seqIter = par.FromSeq(c.seq())
			p = diffIter(c.seqIter)
		}
	case srcChunks:
		xs := make([]int, c.chunkLen)
		for j := range xs {
			xs[j] = j
		}
		p = diffIter(par.Map(par.Chunks(xs, c.chunk), func(ch []int) int {
			defer c.leave()
			i := ch[0] / c.chunk
			if i >= c.n {
				c.inflight.Add(1)
				c.failf("model: Chunks gave chunk %v", ch)
				return c.lo
			}
			c.enterItem(0, i)
			if want := min(c.chunk, c.chunkLen-i*c.chunk); len(ch) != want || cap(ch) != want || ch[want-1] != i*c.chunk+want-1 {
				c.failf("model: chunk %d is %v (cap %d)", i, ch, cap(ch))
			}
			return c.lo + i
		}))
	}
	var applied []string // the settings so far, for the first side of a Chain or a Zip
	for _, st := range c.chain {
		switch {
		case st.op != nil:
			p = c.indexOp(p, st, applied)
		case st.stage < 0:
			p = c.setting(p, st.setting)
			applied = append(applied, st.setting)
		default:
			p = c.adapter(p, st.stage)
		}
	}
	return p
}

// indexOp applies an index adapter, with the Map back from its pairs
// where it makes them. A Chain or a Zip has the settings of its first
// side: one that is not the pipeline gets those given so far.
func (c *diffCase) indexOp(p diffPipe, step diffStep, applied []string) diffPipe {
	op, s := step.op, step.stage
	first := func(it par.Iter[int]) par.Iter[int] {
		q := diffIter(it)
		for _, name := range applied {
			q = c.setting(q, name)
		}
		return q.it
	}
	var st *diffStage
	if s >= 0 {
		st = &c.stages[s]
	}
	back := func(v, pos int) int {
		defer c.leave()
		i, q := c.enter(s, v)
		return c.enc(i, st.pos(q, pos))
	}
	self := func(x, y int) int {
		defer c.leave()
		i, q := c.enter(s, x)
		if x != y {
			c.failf("model: Zip of the pipeline with itself paired %d with %d", x, y)
		}
		return c.enc(i, st.g(i, q))
	}
	switch op.kind {
	case opTake, opSkip:
		take := op.kind == opTake
		switch p.form {
		case formInts:
			if take {
				p.ints = p.ints.Take(op.n)
			} else {
				p.ints = p.ints.Skip(op.n)
			}
		case formNums:
			if take {
				p.nums = p.nums.Take(op.n)
			} else {
				p.nums = p.nums.Skip(op.n)
			}
		default:
			if take {
				p.it = p.it.Take(op.n)
			} else {
				p.it = p.it.Skip(op.n)
			}
		}
		return p
	case opChain:
		if op.split {
			m := op.n
			switch {
			case p.form == formInts:
				return diffPipe{form: formNums, nums: p.ints.Take(m).Chain(p.ints.Skip(m))}
			case p.form == formNums:
				return diffPipe{form: formNums, nums: p.nums.Take(m).Chain(p.nums.Skip(m))}
			case op.variant%2 == 0:
				return diffIter(p.it.Take(m).Chain(p.it.Skip(m)))
			}
			return diffIter(par.Chain(p.it.Take(m), p.it.Skip(m)))
		}
		if op.variant == 3 {
			return diffIter(par.Chain(first(par.Slice[int](nil)), p.iterator()))
		}
		empty := []par.Iterator[int]{par.Slice[int](nil), par.Range(0, 0), par.FromSeq[int](nil)}[op.variant]
		switch p.form {
		case formInts:
			return diffPipe{form: formNums, nums: p.ints.Chain(empty)}
		case formNums:
			return diffPipe{form: formNums, nums: p.nums.Chain(empty)}
		}
		return diffIter(p.it.Chain(empty))
	case opEnum:
		return diffIter(par.Map(par.Enumerate(p.iterator()), func(q par.Pair[int, int]) int { return back(q.Value, q.Key) }))
	case opZip:
		switch op.variant {
		case 0:
			return diffIter(par.Map(par.Zip(p.iterator(), par.Range(0, op.n)), func(q par.Pair[int, int]) int { return back(q.Key, q.Value) }))
		case 1:
			return diffIter(par.Map(par.Zip(first(par.Range(0, op.n).Iter), p.iterator()), func(q par.Pair[int, int]) int { return back(q.Value, q.Key) }))
		case 2:
			return diffIter(par.ZipWith(p.iterator(), par.Range(0, op.n), back))
		}
		return diffIter(par.Map(par.Zip(p.iterator(), par.FromSeq(slices.Values(adapterItems(0, op.n)))),
			func(q par.Pair[int, int]) int { return back(q.Key, q.Value) }))
	case opZipSelf:
		if op.variant == 0 {
			return diffIter(par.Map(par.Zip(p.iterator(), p.iterator()), func(q par.Pair[int, int]) int { return self(q.Key, q.Value) }))
		}
		return diffIter(par.ZipWith(p.iterator(), p.iterator(), self))
	}
	panic("diff: no such index adapter")
}

func (c *diffCase) adapter(p diffPipe, s int) diffPipe {
	st := &c.stages[s]
	switch st.kind {
	case stMap:
		f := func(v int) int {
			defer c.leave()
			i, q := c.enter(s, v)
			return c.enc(i, st.g(i, q))
		}
		switch p.form {
		case formInts:
			return diffPipe{form: formNums, nums: p.ints.Map(f)}
		case formNums:
			return diffPipe{form: formNums, nums: p.nums.Map(f)}
		}
		return diffIter(p.it.Map(f))
	case stFilter:
		pred := func(v int) bool {
			defer c.leave()
			return st.keep(c.enter(s, v))
		}
		switch p.form {
		case formInts:
			return diffPipe{form: formNums, nums: p.ints.Filter(pred)}
		case formNums:
			return diffPipe{form: formNums, nums: p.nums.Filter(pred)}
		}
		return diffIter(p.it.Filter(pred))
	case stFilterMap:
		return diffIter(par.FilterMap(p.iterator(), func(v int) (int, bool) {
			defer c.leave()
			i, q := c.enter(s, v)
			return c.enc(i, st.g(i, q)), st.keep(i, q)
		}))
	case stFlatMap:
		return diffIter(par.FlatMap(p.iterator(), func(v int) []int {
			defer c.leave()
			i, q := c.enter(s, v)
			var out []int
			for _, r := range st.out(i, q, nil) {
				out = append(out, c.enc(i, r))
			}
			return out
		}))
	case stMapInit:
		return diffIter(par.MapInit(p.iterator(), c.newState(s), func(x *diffState, v int) int {
			defer c.use(x)()
			defer c.leave()
			i, q := c.enter(s, v)
			return c.enc(i, st.g(i, q))
		}))
	case stTo:
		if st.str {
			return diffThrough(c, p, s, strconv.Itoa, func(str string) int {
				v, err := strconv.Atoi(str)
				if err != nil {
					c.failf("model: par.Map to string gave %q", str)
				}
				return v
			})
		}
		return diffThrough(c, p, s, func(v int) int64 { return int64(v)*3 + 1 }, func(w int64) int { return int((w - 1) / 3) })
	}
	panic("diff: no such adapter")
}

// diffSettable is what Iter, Nums and Ints have: settings that keep the
// form.
type diffSettable[S any] interface {
	WithPool(*par.Pool) S
	WithContext(context.Context) S
	WithBlockSize(min, max int) S
	WithProgress(func(done, total int)) S
	WithTimeline(*par.Timeline) S
	WithStats(*par.Stats) S
	WithSlow(time.Duration, func()) S
	WithBuffer(int) S
	Unordered() S
	WithMemory(int64) S
	WithTempDir(string, int64) S
}

func diffSet[S diffSettable[S]](c *diffCase, x S, name string) S {
	switch name {
	case "pool":
		return x.WithPool(c.pool)
	case "ctx":
		return x.WithContext(c.ctx)
	case "block":
		return x.WithBlockSize(c.minBlock, c.maxBlock)
	case "progress":
		return x.WithProgress(c.report)
	case "timeline":
		return x.WithTimeline(c.timeline)
	case "stats":
		return x.WithStats(c.stats)
	case "slow":
		return x.WithSlow(c.slowAfter, func() { c.slowCalls.Add(1) })
	case "unordered":
		return x.Unordered()
	case "memory":
		return x.WithMemory(c.memory).WithTempDir(diffSpillDir, 0)
	}
	return x.WithBuffer(c.buffer)
}

// setting applies a setting with the method of the pipeline's form.
func (c *diffCase) setting(p diffPipe, name string) diffPipe {
	switch {
	case name == "blocking" && p.form == formInts:
		p.ints = p.ints.Blocking(c.blocking)
	case name == "blocking" && p.form == formNums:
		p.nums = p.nums.Blocking(c.blocking)
	case name == "blocking":
		p.it = p.it.Blocking(c.blocking)
	case p.form == formInts:
		p.ints = diffSet(c, p.ints, name)
	case p.form == formNums:
		p.nums = diffSet(c, p.nums, name)
	default:
		p.it = diffSet(c, p.it, name)
	}
	return p
}

// diffThrough is the pair of par.Map stages s (to M, the item kept) and s+1
// (back to int, with the payload changed).
func diffThrough[M any](c *diffCase, p diffPipe, s int, to func(int) M, from func(M) int) diffPipe {
	mid := par.Map(p.iterator(), func(v int) M {
		defer c.leave()
		c.enter(s, v)
		return to(v)
	})
	back := &c.stages[s+1]
	return diffIter(par.Map(mid, func(m M) int {
		defer c.leave()
		i, q := c.enter(s+1, from(m))
		return c.enc(i, back.g(i, q))
	}))
}

// diffRun is how the terminal operation ended and what it returned.
type diffRun struct {
	outcome int
	panicV  any
	scalar  diffScalar
	list    []int
	rest    []int
	err     error
	keyed   map[int][]int   // the keyed operations' result, canonical (diff_keyed_test.go)
	cut     *par.Unfinished // Results: the error of its last pair
}

const (
	outReturned = iota
	outPanicked
	outGoexited
)

func (c *diffCase) runTerm(p diffPipe, r *diffRun) {
	it, s := p.iter(), c.termStage
	switch c.term.name {
	case "ForEach":
		it.ForEach(func(v int) { c.item(s, v) })
	case "ForEachIndex":
		it.ForEachIndex(func(pos, v int) {
			defer c.leave()
			if i, _ := c.enter(s, v); i >= 0 && !slices.Contains(c.posOf[v], pos) {
				c.failf("model: ForEachIndex gave item %d (source item %d) position %d, the model %v", v, i, pos, c.posOf[v])
			}
		})
	case "ForEachPtr":
		par.ForEachPtr(c.xs, func(i int, q *int) {
			defer c.leave()
			if i < 0 || i >= c.n || *q != c.lo+i {
				c.inflight.Add(1)
				c.failf("model: ForEachPtr called f(%d, &%d)", i, *q)
				return
			}
			c.enterItem(s, i)
			*q = ^*q
		})
	case "ForEachInit":
		par.ForEachInit(p.iterator(), c.newState(s), func(x *diffState, v int) {
			defer c.use(x)()
			c.item(s, v)
		})
	case "Blocks":
		body := func(lo, hi int) {
			c.block(lo, hi)
			for v := lo; v < hi; v++ {
				c.item(s, v)
			}
		}
		if c.shorthand {
			par.Range(c.lo, c.hi).Blocks(body)
		} else {
			p.ints.Blocks(body)
		}
	case "ReduceBlocks":
		body := func(lo, hi int) int {
			c.block(lo, hi)
			acc := diffIdentity
			for v := lo; v < hi; v++ {
				c.item(s, v)
				acc = diffCompose(acc, diffAffine(v))
			}
			return acc
		}
		if c.shorthand {
			r.scalar.v = par.ReduceBlocks(par.Range(c.lo, c.hi), body, diffCompose)
		} else {
			r.scalar.v = par.ReduceBlocks(p.ints, body, diffCompose)
		}
	case "Reduce":
		affine := func(v int) int { c.item(s, v); return diffAffine(v) }
		r.scalar.v = par.Map(p.iterator(), affine).Reduce(func() int { return diffIdentity }, diffCompose)
	case "Fold":
		fold := func(acc, v int) int { c.item(s, v); return diffCompose(acc, diffAffine(v)) }
		r.scalar.v = par.Fold(p.iterator(), func() int { return diffIdentity }, fold, diffCompose)
	case "Sum":
		if c.method {
			r.scalar.v = p.numsOf().Sum()
		} else {
			r.scalar.v = par.Sum(p.iterator())
		}
	case "Count":
		r.scalar.v = it.Count()
	case "Min":
		r.scalar.v, r.scalar.ok = par.Min(p.iterator())
	case "Max":
		r.scalar.v, r.scalar.ok = par.Max(p.iterator())
	case "MinFunc":
		r.scalar.v, r.scalar.ok = par.MinFunc(p.iterator(), c.cmpKey)
	case "MaxFunc":
		r.scalar.v, r.scalar.ok = par.MaxFunc(p.iterator(), c.cmpKey)
	case "Collect":
		r.list = it.Collect()
	case "Partition":
		r.list, r.rest = it.Partition(c.pred(s))
	case "Any":
		r.scalar.ok = it.Any(c.pred(s))
	case "Every":
		r.scalar.ok = it.Every(c.pred(s))
	case "Find":
		r.scalar.v, r.scalar.ok = it.Find(c.pred(s))
	case "FindFirst":
		r.scalar.v, r.scalar.ok = it.FindFirst(c.pred(s))
	case "TryForEach":
		r.err = it.TryForEach(func(v int) error { _, err := c.try(s, v); return err })
	case "TryForEachContext":
		r.err = it.TryForEachContext(func(_ context.Context, v int) error { _, err := c.try(s, v); return err })
	case "TryMap":
		r.list, r.err = par.TryMap(p.iterator(), func(v int) (int, error) { return c.try(s, v) })
	case "TryMapContext":
		r.list, r.err = par.TryMapContext(p.iterator(), func(_ context.Context, v int) (int, error) { return c.try(s, v) })
	case "TryMapInit":
		r.list, r.err = par.TryMapInit(p.iterator(), c.newState(s), func(x *diffState, v int) (int, error) {
			defer c.use(x)()
			return c.try(s, v)
		})
	case "TryForEachInit":
		r.err = par.TryForEachInit(p.iterator(), c.newState(s), func(x *diffState, v int) error {
			defer c.use(x)()
			_, err := c.try(s, v)
			return err
		})
	case "TryFold":
		fold := func(acc, v int) (int, error) {
			if _, err := c.try(s, v); err != nil {
				return acc, err
			}
			return diffCompose(acc, diffAffine(v)), nil
		}
		if c.salt%2 == 0 {
			r.scalar.v, r.err = par.TryFold(p.iterator(), func() int { return diffIdentity }, fold, diffCompose)
		} else { // a merge that never fails
			merge := func(a, b int) (int, error) { return diffCompose(a, b), nil }
			r.scalar.v, r.err = par.TryFoldMerge(p.iterator(), func() int { return diffIdentity }, fold, merge)
		}
	case "TryReduce":
		// Each item is an operand of exactly one call of op: that call
		// tries it (and fails for it).
		type leaf struct {
			v, item int
			leaf    bool
		}
		leaves := par.Map(p.iterator(), func(v int) leaf { return leaf{diffAffine(v), v, true} })
		op := func(a, b leaf) (leaf, error) {
			for _, x := range [2]leaf{a, b} {
				if x.leaf {
					if _, err := c.try(s, x.item); err != nil {
						return leaf{}, err
					}
				}
			}
			return leaf{v: diffCompose(a.v, b.v)}, nil
		}
		var got leaf
		got, r.err = leaves.TryReduce(func() leaf { return leaf{v: diffIdentity} }, op)
		r.scalar.v = got.v
	case "ForEachErr":
		r.err = it.ForEachErr(func(v int) error { _, err := c.try(s, v); return err })
	case "MapErr":
		r.list, r.err = par.MapErr(p.iterator(), func(v int) (int, error) { return c.try(s, v) })
	case "Values":
		for v := range it.Values() {
			r.list = append(r.list, v)
			if len(r.list) == c.breakAt {
				break
			}
		}
	case "All":
		for pos, v := range it.All() {
			if c.unordered && c.blocking > 0 {
				// Completion order: the position is the item's source
				// position (its value encodes the source item's, which
				// an index adapter may have moved: posOf).
				if !slices.Contains(c.posOf[v], pos) {
					c.failf("Unordered: All gave position %d to the item of source position %v", pos, c.posOf[v])
				}
			} else if pos != len(r.list) {
				c.failf("model: All gave position %d to its item %d", pos, len(r.list))
			}
			r.list = append(r.list, v)
			if len(r.list) == c.breakAt {
				break
			}
		}
	case "Results":
		// Values through a function that never fails: the one error is
		// an *Unfinished, last, when the context cut the pairs short.
		for v, err := range par.Results(p.iterator(), func(v int) (int, error) { return v, nil }) {
			if r.cut != nil {
				c.failf("Results gave a pair after its *Unfinished")
			}
			if err != nil {
				if !errors.As(err, &r.cut) || v != 0 {
					c.failf("Results gave %d with the error %v, want only an *Unfinished with 0", v, err)
				}
				continue
			}
			r.list = append(r.list, v)
			if len(r.list) == c.breakAt {
				break
			}
		}
	case "Len":
		r.scalar.v = it.Len()
	case "GroupBy", "GroupByKey", "ReduceByKey", "CountBy", "Counts", "CollectMap", "Distinct",
		"CountBySorted", "ReduceByKeySorted", "GroupBySorted", "DistinctSorted":
		c.runKeyed(p, r, s)
	}
}

// try is the call of the Try forms: 2v+1, and the error injected at v's
// source item.
func (c *diffCase) try(s, v int) (int, error) {
	defer c.leave()
	i, _ := c.enter(s, v)
	return 2*v + 1, c.errFor(i)
}

func (c *diffCase) pred(s int) func(int) bool {
	return func(v int) bool {
		defer c.leave()
		c.enter(s, v)
		return c.match(v)
	}
}

// watch runs f on a goroutine of its own and reports how it ended. A case
// that takes longer than the watchdog's limit is a hang: the test panics
// with the seed, the pipeline and every goroutine's stack.
func (c *diffCase) watch(f func()) (outcome int, v any) {
	done := make(chan struct{})
	go func() {
		normal := false
		defer func() {
			if !normal {
				if v = recover(); v != nil {
					outcome = outPanicked
				} else {
					outcome = outGoexited
				}
			}
			close(done)
		}()
		f()
		normal = true
	}()
	timer := time.NewTimer(30 * time.Second * time.Duration(1+race.Scale/10))
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		debug.SetTraceback("all")
		panic(fmt.Sprintf("TestDifferential: seed %d hangs: %s\n%s", c.seed, c.desc, c.replay()))
	}
	return outcome, v
}

func (c *diffCase) replay() string {
	return fmt.Sprintf("replay: go test ./par -run 'TestDifferential$' -diffseed %d -v", c.seed)
}

// runAndCheck runs the case and checks it; it reports the failures in full
// if report is set, and says whether the case passed.
func (c *diffCase) runAndCheck(t *testing.T, report bool) bool {
	t.Helper()
	p := c.build()
	if c.precancel {
		c.cancel(diffCause)
	}
	var r diffRun
	r.outcome, r.panicV = c.watch(func() { c.runTerm(p, &r) })
	c.check(&r)
	if err := p.iter().Err(); err != nil {
		c.failf("Err: %v, over sources that cannot fail", err)
	}
	if c.stopProducer != nil {
		c.stopProducer()
	}
	if r.outcome != outReturned {
		// The pools stay usable after a panic or a Goexit.
		pool := c.pool
		if pool == nil {
			pool = par.DefaultPool()
		}
		if out, v := c.watch(func() {
			if got := par.Range(0, 1000).WithPool(pool).Sum(); got != 499500 {
				c.failf("pool: Sum after the failure gave %d", got)
			}
		}); out != outReturned {
			c.failf("pool: Sum after the failure ended with %v", v)
		}
	}
	if c.cancel != nil {
		c.cancel(nil)
	}
	if len(c.errs) == 0 {
		return true
	}
	if report {
		t.Errorf("seed %d: %s\n\t%s\n\t%s", c.seed, c.desc, strings.Join(c.errs, "\n\t"), c.replay())
	} else {
		t.Fail()
	}
	return false
}

// tags names the kinds of failure of the case, the prefix of each message.
func (c *diffCase) tags() []string {
	var tags []string
	for _, e := range c.errs {
		tag, _, _ := strings.Cut(e, ":")
		tags = append(tags, c.term.name+" "+tag)
	}
	slices.Sort(tags)
	return slices.Compact(tags)
}

// ---- The checks. ----

// check compares what ran and what came back with the model.
func (c *diffCase) check(r *diffRun) {
	c.checkAtMost()
	// Each adapter that makes a stream runs the steps before it with a
	// limit of their own (adapters.go).
	if limit := c.blocking * (1 + c.streams); c.blocking > 0 && c.maxInflight.Load() > int32(limit) {
		c.failf("Blocking: %d callbacks ran at once, over the limit %d", c.maxInflight.Load(), limit)
	}
	if n := c.reentered.Load(); n != c.reenterPanics.Load() {
		c.failf("R5: %d of %d terminal operations started on the FromSeq iterator while one ran did not panic", n-c.reenterPanics.Load(), n)
	}
	for s := range c.inits {
		if got := c.inits[s].Load(); c.n == 0 && got > 0 {
			c.failf("MapInit: init of stage %d called %d times over no items", s, got)
		}
	}
	c.checkPulls()
	panics, goexits := c.fired(actPanic), c.fired(actGoexit)
	seqPanic := c.seqPanicAt >= 0 && c.pulled.Load() > int64(c.seqPanicAt)
	bad := c.yieldFalse.Load()
	switch r.outcome {
	case outPanicked:
		c.checkPanic(r, panics, seqPanic, bad)
	case outGoexited:
		// A Goexit in a callback ends the caller's goroutine by Goexit.
		if len(goexits) == 0 {
			c.failf("goexit: the operation ended its goroutine by Goexit, and no injected Goexit ran")
		}
	default:
		// A panic or Goexit in a callback that ran is never dropped (R4
		// for Values and All, even when the loop body broke first).
		switch {
		case len(panics) > 0:
			c.failf("%s: the injected panic at %v ran, and the operation returned", c.r4("panic"), panics[0])
		case len(goexits) > 0:
			c.failf("%s: the injected Goexit at %v ran, and the operation returned", c.r4("goexit"), goexits[0])
		case seqPanic:
			c.failf("%s: the seq panicked at pull %d, and the operation returned", c.r4("panic"), c.seqPanicAt)
		case bad:
			c.failf("R4: the seq called yield after yield returned false, and the operation returned")
		default:
			c.checkResult(r)
			c.checkProgress()
			c.checkTimeline()
			c.checkStats()
			c.checkSlow()
			c.checkInits()
		}
	}
}

func (c *diffCase) r4(tag string) string {
	if c.term.kind == tkStream {
		return "R4"
	}
	return tag
}

// fired lists the injections of the kind whose callback ran.
func (c *diffCase) fired(act int) []diffPanic {
	var out []diffPanic
	for s, m := range c.inj {
		for i, a := range m {
			if a == act && c.calls[s][i].Load() > 0 {
				out = append(out, diffPanic{s, i})
			}
		}
	}
	return out
}

// checkPulls: over FromSeq, once the result is decided (a match of a
// search, an error of a Try form), a callback panics or the context is
// done, no more items are pulled beyond O(m + workers), m the source
// item that decided (the constants below). (Values and All: see
// checkStream.)
func (c *diffCase) checkPulls() {
	if c.src != srcSeq || !c.counted() || c.term.kind == tkStream || c.streams > 0 {
		return
	}
	m := c.n
	for _, act := range []int{actPanic, actGoexit, actCancel} {
		for _, f := range c.fired(act) {
			m = min(m, f.item)
		}
	}
	if c.seqCancelAt >= 0 && c.pulled.Load() > int64(c.seqCancelAt) {
		m = min(m, c.seqCancelAt)
	}
	if c.term.kind == tkTry {
		for i := range c.errAt {
			if c.calls[c.termStage][i].Load() > 0 {
				m = min(m, i)
			}
		}
	}
	if c.term.kind == tkSearch {
		want := c.term.name != "Every"
		for i := 0; i < m; i++ {
			if c.calls[c.termStage][i].Load() > 0 && slices.ContainsFunc(c.flat[c.start[i]:c.start[i+1]], func(x int) bool { return c.match(x) == want }) {
				m = i
			}
		}
	}
	// On the pool, a chunk ends at most max(oldest, reach, its size)
	// positions past the oldest position in use (internal/pipe/seqblocks.go),
	// which is at most m until the decision; a chunk size doubles after a
	// full chunk, so up to about 2m, and the feeder pulls up to twice the
	// positions handed out. Every participant may take a chunk while the
	// item that decides runs: of 4 items, or of the least block size that
	// WithBlockSize sets.
	workers := par.DefaultPool().Workers()
	if c.pool != nil {
		workers = c.pool.Workers()
	}
	most := 6*m + 2 + workers*max(4, c.minBlock) + 8*c.blocking
	if c.blocking > 0 {
		// The blocking driver's calls run up to its ring of items past
		// the oldest call still running (internal/pipe/seqloop.go), and the
		// feeder runs ahead of what they took, a chunk of 256 at a time.
		ring := max(1024, 64*c.blocking*max(c.minBlock, 1))
		ring = 1 << bits.Len(uint(ring-1))
		most = 2*(m+ring+256) + 4*c.blocking*max(c.minBlock, 1) + 2
	}
	if m < c.n && c.pulled.Load() > int64(most) {
		c.failf("seq: %d items were pulled, over %d, after the result was decided at source item %d", c.pulled.Load(), most, m)
	}
}

// checkPanic: the operation panics with a *par.Panic holding one of the
// injected values that ran; a panic of the seq comes as it is; a seq that
// calls yield after false gets a panic that reaches the caller.
func (c *diffCase) checkPanic(r *diffRun, panics []diffPanic, seqPanic, bad bool) {
	ok := false
	if p, isPanic := r.panicV.(*par.Panic); isPanic {
		dp, isDiff := p.Value.(diffPanic)
		msg, isStr := p.Value.(string)
		ok = isDiff && slices.Contains(panics, dp) || bad && isStr && strings.Contains(msg, "yield")
	} else if sp, isSeq := r.panicV.(diffSeqPanic); isSeq {
		ok = seqPanic && sp.at == c.seqPanicAt
	} else if msg, isStr := r.panicV.(string); isStr {
		ok = bad && strings.Contains(msg, "yield")
	}
	if !ok {
		msg, _, _ := strings.Cut(fmt.Sprint(r.panicV), "\n")
		c.failf("panic: the operation panicked with %T %s; injected panics that ran: %v, seq panic: %v, yield after false: %v",
			r.panicV, msg, panics, seqPanic, bad)
	}
	switch {
	case c.term.kind == tkStream && c.unordered && c.blocking > 0:
		c.checkUnorderedStream(r.list, true) // some of the items, in any order
	case c.term.kind == tkStream:
		c.checkList("panic", r.list, c.flat, 0, c.n, false)
	}
}

func (c *diffCase) cancelled() bool { return c.ctx != nil && c.ctx.Err() != nil }

// uncertain reports whether a done context may have cut the items with no
// callback to tell (see tailUncounted): the result may be a prefix, and a
// Try form's error the context's cause, though every call ran.
func (c *diffCase) uncertain() bool { return c.tailUncounted || c.headUncounted }

// allRan reports whether every call of the model was made.
func (c *diffCase) allRan() bool {
	if c.n == 0 {
		return true
	}
	if len(c.stages) == 0 {
		return false
	}
	for s := range c.stages {
		for i := range c.n {
			if !c.lax[s][i] && c.calls[s][i].Load() != c.exp[s][i] {
				return false
			}
		}
	}
	return true
}

// bound is the first source item whose first stage did not run once: a
// result over a prefix of the source covers no more than that (R1).
func (c *diffCase) bound() int {
	if len(c.stages) == 0 {
		return c.n
	}
	for i := range c.n {
		if !c.lax[0][i] && c.calls[0][i].Load() != c.exp[0][i] {
			return i
		}
	}
	return c.n
}

// checkAtMost: no callback runs more often than the model calls it.
func (c *diffCase) checkAtMost() {
	for s := range c.stages {
		for i := range c.n {
			if got := c.calls[s][i].Load(); got > c.exp[s][i] {
				c.failf("count: stage %d ran %d times for source item %d, the model %d", s, got, i, c.exp[s][i])
				return
			}
		}
	}
}

// checkExact: every stage ran exactly as often as the model says for the
// source items below end.
func (c *diffCase) checkExact(tag string, end int) {
	for s := range c.stages {
		for i := range end {
			if got := c.calls[s][i].Load(); got != c.exp[s][i] && !c.lax[s][i] {
				c.failf("%s: stage %d ran %d times for source item %d, the model %d", tag, s, got, i, c.exp[s][i])
				return
			}
		}
	}
}

// checkNone: no callback ran.
func (c *diffCase) checkNone(tag, where string) {
	for s := range c.stages {
		for i := range c.n {
			if c.calls[s][i].Load() > 0 {
				c.failf("%s: stage %d ran for source item %d %s", tag, s, i, where)
				return
			}
		}
	}
}

func (c *diffCase) filtered() bool {
	if c.seqLike {
		return true
	}
	for _, st := range c.stages {
		if st.kind == stFilter || st.kind == stFilterMap || st.kind == stFlatMap {
			return true
		}
	}
	return false
}

// ruleTag names the rule a result breaks: R2 for a context done before
// the start, R1 for one cancelled during the run, the model otherwise.
func (c *diffCase) ruleTag() string {
	switch {
	case c.precancel:
		return "R2"
	case c.cancelled():
		return "R1"
	}
	return "model"
}

// checkResult checks a returned result. Without cancellation it is the
// model's over the whole source. With it (R1), it is the model's over a
// prefix source[:p], where every source item below p ran and p is n if
// every item ran; under a context done before the start (R2) no callback
// runs and p is 0.
func (c *diffCase) checkResult(r *diffRun) {
	cancelled, allRan := c.cancelled(), c.allRan()
	plo, phi := c.n, c.n
	switch {
	case c.precancel:
		plo, phi = 0, 0
		c.checkNone("R2", "under a context done before the start")
	case cancelled && (!allRan || c.uncertain()):
		plo, phi = 0, c.bound()
	}
	whole := allRan && !(cancelled && c.uncertain())
	tag := c.ruleTag()
	full := !cancelled
	switch c.term.kind {
	case tkEffect:
		if full {
			c.checkExact("model", c.n)
		}
		if c.term.name == "ForEachPtr" {
			for i, v := range c.xs {
				if v != ^(c.lo + i) {
					c.failf("model: ForEachPtr left element %d at %d", i, v)
					break
				}
			}
		}
	case tkScalar:
		if c.term.name == "Count" && !c.filtered() {
			// Count without a Filter knows its result without running
			// anything: n, or (R1, R2) the empty prefix's.
			if r.scalar.v != len(c.flat) && (r.scalar.v != 0 || !cancelled) {
				c.failf("model: Count gave %d, want %d", r.scalar.v, len(c.flat))
			}
			c.checkNone("model", "in Count without a Filter")
			return
		}
		if full && c.term.name != "Count" {
			c.checkExact("model", c.n)
		}
		c.checkScalar(tag, r.scalar, plo, phi)
	case tkList:
		if r.list == nil {
			c.failf("%s: Collect returned a nil slice", tag)
		}
		c.checkList(tag, r.list, c.flat, plo, phi, true)
	case tkPartition:
		if full {
			c.checkExact("model", c.n)
		}
		c.checkPartition(tag, r, plo, phi)
	case tkSearch:
		c.checkSearch(tag, r, cancelled, whole)
	case tkTry:
		c.checkTry(r, cancelled, allRan)
	case tkAllErr:
		c.checkAllErr(r, cancelled, allRan)
	case tkStream:
		c.checkStream(r, cancelled, whole)
	case tkKeyed:
		if full {
			c.checkExact("model", c.n)
		}
		c.checkKeyed(tag, r, plo, phi)
	case tkLen:
		c.checkNone("model", "in Len")
		want := c.idxN
		switch {
		case c.seqLike || c.hasFlt:
			want = -1
		case c.filtered():
			if r.scalar.v < len(c.flat) || r.scalar.v > c.idxN {
				c.failf("model: Len gave %d, not a bound in [%d, %d]", r.scalar.v, len(c.flat), c.idxN)
			}
			return
		}
		if r.scalar.v != want {
			c.failf("model: Len gave %d, want %d", r.scalar.v, want)
		}
	}
}

// scalarModel is the model of a scalar result as a fold over the items.
func (c *diffCase) scalarModel() (diffScalar, func(diffScalar, int) diffScalar) {
	switch c.term.name {
	case "Sum":
		return diffScalar{}, func(a diffScalar, x int) diffScalar { return diffScalar{v: a.v + x} }
	case "Count":
		return diffScalar{}, func(a diffScalar, x int) diffScalar { return diffScalar{v: a.v + 1} }
	case "Reduce", "Fold":
		return diffScalar{v: diffIdentity}, func(a diffScalar, x int) diffScalar { return diffScalar{v: diffCompose(a.v, diffAffine(x))} }
	case "ReduceBlocks":
		return diffScalar{}, func(a diffScalar, x int) diffScalar {
			if a.ok {
				return diffScalar{diffCompose(a.v, diffAffine(x)), true}
			}
			return diffScalar{diffAffine(x), true}
		}
	}
	better := map[string]func(x, v int) bool{
		"Min":     func(x, v int) bool { return x < v },
		"Max":     func(x, v int) bool { return x > v },
		"MinFunc": func(x, v int) bool { return c.key(x) < c.key(v) },
		"MaxFunc": func(x, v int) bool { return c.key(x) > c.key(v) },
	}[c.term.name]
	return diffScalar{}, func(a diffScalar, x int) diffScalar {
		if !a.ok || better(x, a.v) {
			return diffScalar{x, true}
		}
		return a
	}
}

// checkScalar: got is the model's result over source[:p] for some p in
// [plo, phi].
func (c *diffCase) checkScalar(tag string, got diffScalar, plo, phi int) {
	if c.unordered && (c.term.name == "Reduce" || c.term.name == "Fold") {
		// Their op is associative, not commutative: under Unordered the
		// result depends on timing, and only the calls are checked.
		return
	}
	acc, step := c.scalarModel()
	final := func(a diffScalar) diffScalar {
		if c.term.name == "ReduceBlocks" {
			a.ok = false
		}
		return a
	}
	var atLo diffScalar
	for p := 0; p <= phi; p++ {
		if p > 0 {
			for _, x := range c.flat[c.start[p-1]:c.start[p]] {
				acc = step(acc, x)
			}
		}
		if p == plo {
			atLo = final(acc)
		}
		if p >= plo && final(acc) == got {
			return
		}
	}
	if plo == phi {
		c.failf("%s: %s gave %+v, the model %+v", tag, c.term.name, got, atLo)
	} else {
		c.failf("%s: %s gave %+v, not the model's result over a prefix source[:p] with p in [%d, %d] (over [:%d]: %+v, over [:%d]: %+v)",
			tag, c.term.name, got, plo, phi, plo, atLo, phi, final(acc))
	}
}

// checkList: got is a prefix of want; if whole is set, it holds the items
// of source[:p] for some p in [plo, phi].
func (c *diffCase) checkList(tag string, got, want []int, plo, phi int, whole bool) {
	for k, v := range got {
		if k >= len(want) || v != want[k] {
			w := "none"
			if k < len(want) {
				w = strconv.Itoa(want[k])
			}
			c.failf("%s: %s item %d is %d, the model's %s (%d items, the model %d)", tag, c.term.name, k, v, w, len(got), len(want))
			return
		}
	}
	if !whole {
		return
	}
	for p := plo; p <= phi; p++ {
		if c.start[p] == len(got) {
			return
		}
	}
	c.failf("%s: %s gave %d items, not those of a prefix source[:p] with p in [%d, %d] (%d to %d items)",
		tag, c.term.name, len(got), plo, phi, c.start[plo], c.start[phi])
}

// checkPartition: both halves are non-nil, in source order, and over the
// same prefix of the source.
func (c *diffCase) checkPartition(tag string, r *diffRun, plo, phi int) {
	if r.list == nil || r.rest == nil {
		c.failf("%s: Partition returned a nil slice", tag)
	}
	var yes, no []int
	cy, cn := make([]int, c.n+1), make([]int, c.n+1)
	for i := range c.n {
		for _, x := range c.flat[c.start[i]:c.start[i+1]] {
			if c.match(x) {
				yes = append(yes, x)
			} else {
				no = append(no, x)
			}
		}
		cy[i+1], cn[i+1] = len(yes), len(no)
	}
	c.checkList(tag, r.list, yes, 0, 0, false)
	c.checkList(tag, r.rest, no, 0, 0, false)
	for p := plo; p <= phi; p++ {
		if cy[p] == len(r.list) && cn[p] == len(r.rest) {
			return
		}
	}
	c.failf("%s: Partition gave %d and %d items, not the halves of a prefix source[:p] with p in [%d, %d] (model over [:%d]: %d and %d)",
		tag, len(r.list), len(r.rest), plo, phi, phi, cy[phi], cn[phi])
}

// checkSearch: a match found is a match of an item that ran (FindFirst:
// the first, with every item below it run exactly once); none found means
// none in a prefix of the source, the whole of it unless cancelled.
func (c *diffCase) checkSearch(tag string, r *diffRun, cancelled, allRan bool) {
	want := c.term.name != "Every"
	first := slices.IndexFunc(c.flat, func(x int) bool { return c.match(x) == want })
	ran := func(x int) bool {
		i := (x - c.lo) & diffMask
		return i < c.n && slices.Contains(c.flat[c.start[i]:c.start[i+1]], x) && c.match(x) == want && c.calls[c.termStage][i].Load() > 0
	}
	found := r.scalar.ok
	if c.term.name == "Every" {
		found = !found
	}
	whole := !cancelled || allRan
	switch {
	case !found:
		if c.term.name == "Find" || c.term.name == "FindFirst" {
			if r.scalar.v != 0 {
				c.failf("%s: %s found nothing and gave %d, not the zero value", tag, c.term.name, r.scalar.v)
			}
		}
		if whole && first >= 0 {
			c.failf("%s: %s found no item with pred %v, and item %d (source item %d) has one", tag, c.term.name, want, first, (c.flat[first]-c.lo)&diffMask)
		}
		if !cancelled {
			c.checkExact("model", c.n)
		}
	case c.term.name == "Any" || c.term.name == "Every":
		if !slices.ContainsFunc(c.flat, ran) {
			c.failf("%s: %s decided on a match, and no item that ran has one", tag, c.term.name)
		}
	case c.term.name == "Find":
		if !ran(r.scalar.v) {
			c.failf("%s: Find gave %d, not a match of an item that ran", tag, r.scalar.v)
		}
	default:
		if first < 0 || r.scalar.v != c.flat[first] {
			c.failf("%s: FindFirst gave %d, the model's first match is at item %d", tag, r.scalar.v, first)
			return
		}
		i := (r.scalar.v - c.lo) & diffMask
		if !cancelled {
			c.checkExact("model (below the first match)", i)
		} else if b := c.bound(); b <= i {
			c.failf("R1: FindFirst gave the match of source item %d, and source item %d did not run", i, b)
		}
	}
}

// checkTry: an error returned by a call wins over the context:
// TryForEach and TryMap return the lowest-index one among the calls that
// ran, the context forms one of them. Without one (R3), a cancelled
// operation returns context.Cause(ctx) if some item was left out, and nil
// with every result (non-nil) if every item ran. Results are nil on error.
func (c *diffCase) checkTry(r *diffRun, cancelled, allRan bool) {
	var failed []int
	for i := range c.errAt {
		if c.calls[c.termStage][i].Load() > 0 {
			failed = append(failed, i)
		}
	}
	slices.Sort(failed)
	collect := c.term.name == "TryMap" || c.term.name == "TryMapContext" || c.term.name == "TryMapInit"
	var de *diffError
	isErr := errors.As(r.err, &de)
	switch {
	case len(failed) > 0:
		switch {
		case isErr && slices.Contains(failed, de.item):
			if !c.term.ctxForm && de.item != failed[0] {
				c.failf("error: %s returned the error of item %d; the lowest failing item that ran is %d", c.term.name, de.item, failed[0])
			}
		case c.term.ctxForm && cancelled && r.err == diffCause:
			// The parent context was cancelled first.
		default:
			c.failf("%s: %s returned %v; the items that failed: %v", c.r3("error"), c.term.name, r.err, failed)
		}
		if collect && r.list != nil {
			c.failf("error: %s returned results with its error", c.term.name)
		}
		if c.term.folds && r.scalar.v != 0 {
			c.failf("error: %s returned %d with its error, want the zero value", c.term.name, r.scalar.v)
		}
	case cancelled && !allRan:
		if r.err != diffCause {
			c.failf("R3: %s returned %v with items left out by the cancellation; want the context's cause", c.term.name, r.err)
		}
		if collect && r.list != nil {
			c.failf("R3: %s returned results with the context's cause", c.term.name)
		}
		if c.term.folds && r.scalar.v != 0 {
			c.failf("R3: %s returned %d with the context's cause, want the zero value", c.term.name, r.scalar.v)
		}
	case cancelled && (c.seqKind == 3 || c.uncertain()) && r.err == diffCause:
		// FromChan: the context was done before the channel was seen
		// closed, so the operation cannot tell that no item was left out;
		// uncertain: nor can the model.
		if collect && r.list != nil {
			c.failf("R3: %s returned results with the context's cause", c.term.name)
		}
	default:
		if r.err != nil {
			c.failf("%s: %s returned %v, and every item ran with no error", c.r3("model"), c.term.name, r.err)
		}
		if collect {
			want := make([]int, len(c.flat))
			for k, x := range c.flat {
				want[k] = 2*x + 1
			}
			if r.list == nil {
				c.failf("%s: %s returned nil results, want %d", c.r3("model"), c.term.name, len(want))
			} else {
				c.checkList(c.r3("model"), r.list, want, c.n, c.n, true)
			}
		}
		if c.term.folds {
			want := diffIdentity
			for _, x := range c.flat {
				want = diffCompose(want, diffAffine(x))
			}
			if r.scalar.v != want {
				c.failf("%s: %s gave %d, want %d, the fold of every item in order", c.r3("model"), c.term.name, r.scalar.v, want)
			}
		}
		if !cancelled {
			c.checkExact("model", c.n)
		}
	}
}

// checkAllErr: ForEachErr and MapErr return one *par.ItemError per failed
// call that ran, with its source position, in index order; and, if a done
// context left an item out (R3), an *par.Unfinished last, with the
// context's cause, that names no position of an item that ran and every
// position of an item that did not. MapErr returns the result of every
// call that ran (non-nil): all of them, in source order, if every item ran.
func (c *diffCase) checkAllErr(r *diffRun, cancelled, allRan bool) {
	var errs []error
	if r.err != nil {
		j, ok := r.err.(interface{ Unwrap() []error })
		if !ok {
			c.failf("error: %s returned %T %v, not a joined error", c.term.name, r.err, r.err)
			return
		}
		errs = j.Unwrap()
	}
	var cut *par.Unfinished
	if len(errs) > 0 {
		cut, _ = errs[len(errs)-1].(*par.Unfinished)
	}
	leftOut := cancelled && !allRan
	if cancelled && (c.seqKind == 3 || c.uncertain()) && cut != nil {
		leftOut = true // FromChan: done before the channel was seen closed (see checkTry)
	}
	if leftOut {
		if cut == nil || cut.Cause != diffCause {
			c.failf("R3: %s returned %v with items left out by the cancellation; want an *Unfinished of the context's cause last", c.term.name, r.err)
			return
		}
		errs = errs[:len(errs)-1]
		c.checkLeft(cut)
	}
	got := make(map[int]int32)
	last := -1
	for _, e := range errs {
		ie, ok := e.(*par.ItemError)
		var de *diffError
		if !ok || !errors.As(ie.Err, &de) || !slices.Contains(c.posOfItem[de.item], ie.Index) || ie.Index < last {
			c.failf("error: %s returned %v among its errors: not an ItemError of an injected error at its item's position, in index order after %d",
				c.term.name, e, last)
			return
		}
		last = ie.Index
		got[de.item]++
	}
	for i := range c.n {
		want := int32(0)
		if c.errAt[i] {
			want = c.calls[c.termStage][i].Load()
		}
		if got[i] != want {
			c.failf("%s: %s returned %d errors of source item %d, whose failing calls ran %d times", c.r3("error"), c.term.name, got[i], i, want)
			return
		}
	}
	if c.term.name != "MapErr" {
	} else if r.list == nil {
		c.failf("%s: MapErr returned nil results", c.r3("model"))
	} else if !leftOut {
		want := make([]int, len(c.flat))
		for k, x := range c.flat {
			want[k] = 2*x + 1
		}
		c.checkList(c.r3("model"), r.list, want, c.n, c.n, true)
	} else {
		// The results of the calls that ran, in source order, in their
		// slots or one after the other: 2x+1 is never 0, the zero value
		// of a slot whose item did not run.
		var want []int
		for i := range c.n {
			switch calls, flat := c.calls[c.termStage][i].Load(), c.flat[c.start[i]:c.start[i+1]]; {
			case calls == 0:
			case int(calls) != len(flat):
				return // some of the item's calls ran: not told apart here
			default:
				for _, x := range flat {
					want = append(want, 2*x+1)
				}
			}
		}
		ran := slices.DeleteFunc(slices.Clone(r.list), func(v int) bool { return v == 0 })
		c.checkList("R3", ran, want, 0, 0, false)
		if len(ran) != len(want) {
			c.failf("R3: MapErr returned %d results of calls that ran, want %d", len(ran), len(want))
		}
	}
	if !cancelled {
		c.checkExact("model", c.n)
	}
}

// checkLeft: an *Unfinished names, in Left, the positions of the items
// read that did not run, in increasing order below Rest (if Rest >= 0):
// none of an item whose calls all ran, each of an item whose calls did not.
func (c *diffCase) checkLeft(u *par.Unfinished) {
	left := slices.Collect(u.Left())
	if !slices.IsSorted(left) || len(slices.Compact(slices.Clone(left))) != len(left) ||
		u.Rest >= 0 && len(left) > 0 && left[len(left)-1] >= u.Rest {
		c.failf("R3: %s's *Unfinished has Left %v, not increasing below Rest %d", c.term.name, left, u.Rest)
		return
	}
	for i := range c.n {
		calls, pos := c.calls[c.termStage][i].Load(), c.posOfItem[i]
		for _, p := range pos {
			_, in := slices.BinarySearch(left, p)
			isLeft := in || u.Rest >= 0 && p >= u.Rest
			switch {
			case int(calls) == len(pos) && isLeft:
				c.failf("R3: %s's *Unfinished names position %d (Rest %d) of source item %d, whose calls ran", c.term.name, p, u.Rest, i)
				return
			case calls == 0 && !isLeft:
				c.failf("R3: %s's *Unfinished leaves out position %d (Left %d positions, Rest %d) of source item %d, whose calls did not run",
					c.term.name, p, len(left), u.Rest, i)
				return
			}
		}
	}
}

func (c *diffCase) r3(tag string) string {
	if c.cancelled() {
		return "R3"
	}
	return tag
}

// checkStream: Values and All give a prefix of the model's items: the
// first k when the body breaks after k (R4), all of them unless cancelled
// or when every item ran (R1), none under a context done before (R2).
// Over FromSeq, a body that breaks at source item k leaves at most k + 1
// + the buffer source items pulled, the buffer once for each adapter that
// made a stream of a stream (R4).
func (c *diffCase) checkStream(r *diffRun, cancelled, allRan bool) {
	got := r.list
	if c.term.name == "Results" {
		c.checkCut(r, cancelled)
	}
	if c.unordered && c.blocking > 0 {
		c.checkUnorderedStream(got, cancelled)
		return
	}
	tag := c.ruleTag()
	c.checkList(tag, got, c.flat, 0, 0, false)
	broke := c.breakAt > 0 && c.breakAt <= len(c.flat)
	switch {
	case c.precancel:
		if len(got) > 0 {
			c.failf("R2: %s gave %d items under a context done before the start", c.term.name, len(got))
		}
	case broke && !cancelled && len(got) != c.breakAt:
		c.failf("R4: %s's body broke after %d items, and received %d", c.term.name, c.breakAt, len(got))
	case !broke && (!cancelled || allRan) && len(got) != len(c.flat):
		c.failf("%s: %s gave %d items, the model %d", tag, c.term.name, len(got), len(c.flat))
	}
	if !cancelled && !broke {
		c.checkExact("model", c.n)
	}
	if broke && len(got) == c.breakAt && c.src == srcSeq && c.counted() {
		buffer := c.buffer
		if buffer == 0 {
			buffer = 1 << 16
		}
		last := (got[len(got)-1] - c.lo) & diffMask
		if pulled, most := c.pulled.Load(), c.pullBound(last, buffer); pulled > int64(most) {
			c.failf("R4: the body broke at source item %d, and %d items were pulled, over the %d that the buffer %d allows through %d restreams", last, pulled, most, buffer, c.streams)
		}
	}
}

// checkCut: Results ends with an *Unfinished, holding the context's cause
// alone, when a done context cut its pairs short (R1, R3), and only under
// a done context: a body that broke sees none.
func (c *diffCase) checkCut(r *diffRun, cancelled bool) {
	broke := c.breakAt > 0 && len(r.list) == c.breakAt
	switch u := r.cut; {
	case u == nil && cancelled && !broke && len(r.list) < len(c.flat):
		c.failf("R3: Results gave %d pairs of %d under a done context, and no *Unfinished", len(r.list), len(c.flat))
	case u == nil:
	case !cancelled || broke:
		c.failf("R1: Results gave %v, with no context done or after its body broke", u)
	case u.Cause != diffCause || u.LeftCount() != 0 || u.Rest != -1:
		c.failf("R3: Results gave %#v, want the context's cause alone", u)
	}
}

// pullBound is the most source items a stream may pull when its body has
// used the items up to source item last: each adapter that made a stream
// of a stream, from the body's end back, computes up to buffer of its
// items past the last one used after it, and over none the source holds
// the buffer itself. A buffer counts an adapter's items, so after a
// Filter it spans more source items than it holds.
func (c *diffCase) pullBound(last, buffer int) int {
	if len(c.restreamIn) == 0 {
		return last + 1 + buffer
	}
	for r := len(c.restreamIn) - 1; r >= 0; r-- {
		in := c.restreamIn[r]
		used := sort.SearchInts(in, last+1) // its items up to source item last
		if used+buffer-1 >= len(in) {
			return c.n
		}
		last = max(last, in[used+buffer-1])
	}
	return last + 1
}

// checkUnorderedStream: Values and All under Unordered and Blocking give
// the model's items in any order, each once: all of them unless the body
// broke or the context was done, then some of them.
func (c *diffCase) checkUnorderedStream(got []int, cancelled bool) {
	left := map[int]int{}
	for _, x := range c.flat {
		left[x]++
	}
	for _, v := range got {
		if left[v] == 0 {
			c.failf("Unordered: %s gave %d, which the model does not have (or not that often)", c.term.name, v)
			return
		}
		left[v]--
	}
	broke := c.breakAt > 0 && c.breakAt <= len(c.flat)
	switch {
	case c.precancel && len(got) > 0:
		c.failf("R2: %s gave %d items under a context done before the start", c.term.name, len(got))
	case broke && !cancelled && len(got) != c.breakAt:
		c.failf("R4: %s's body broke after %d items, and received %d", c.term.name, c.breakAt, len(got))
	case !broke && !cancelled && len(got) != len(c.flat):
		c.failf("Unordered: %s gave %d items, the model %d", c.term.name, len(got), len(c.flat))
	}
}

// runsNothing reports whether the operation runs no item by its nature.
func (c *diffCase) runsNothing() bool {
	return c.term.kind == tkLen || c.term.name == "Count" && !c.filtered()
}

// checkInits: init (MapInit, ForEachInit) is called at most once per
// goroutine running the pipeline at once: Blocking's limit, or the pool's
// workers and the caller, which takes part in the work while it waits.
func (c *diffCase) checkInits() {
	most := c.blocking
	if most == 0 {
		pool := c.pool
		if pool == nil {
			pool = par.DefaultPool()
		}
		most = pool.Workers() + 1
	}
	most <<= c.zipSelf // each side of the Zip has a state of its own
	for s := range c.inits {
		if got := c.inits[s].Load(); int(got) > most {
			c.failf("MapInit: init of stage %d called %d times, over %d goroutines", s, got, most)
		}
	}
}

// checkProgress: report is called one at a time, with done never going
// back, and last with done == total: n, or over FromSeq -1 with done the
// number of items pulled.
func (c *diffCase) checkProgress() {
	if !c.progress || c.runsNothing() {
		return
	}
	if len(c.prog) == 0 {
		c.failf("progress: report was never called")
		return
	}
	total := c.idxN
	if c.seqLike {
		total = -1
	}
	for k, call := range c.prog {
		if call[1] != total || k > 0 && call[0] < c.prog[k-1][0] {
			c.failf("progress: call %d of %d is %v, with total %d", k, len(c.prog), call, total)
			return
		}
	}
	last := c.prog[len(c.prog)-1][0]
	switch {
	case total >= 0 && last != total:
		c.failf("progress: the last call gave done %d of %d", last, total)
	case total < 0 && c.counted() && c.streams == 0 && int64(last) > c.pulled.Load():
		// Over FromSeq the last call gives the items that ran: at most
		// those pulled, and all of them when every item ran.
		c.failf("progress: the last call gave done %d, and %d items were pulled", last, c.pulled.Load())
	case total < 0 && c.counted() && c.streams == 0 && len(c.stages) > 0 && c.allRan() && int64(last) != c.pulled.Load():
		c.failf("progress: every item ran, the last call gave done %d, and %d items were pulled", last, c.pulled.Load())
	}
}

// checkStats: the statistics add up (the participants' items and blocks
// to the operation's, each busy and idle within the operation's time; an
// ordered stream's buffer within WithBuffer's bound) and count
// every index when the operation ran every item (at least: an operation
// of several loops adds them up).
func (c *diffCase) checkStats() {
	if c.stats == nil || c.runsNothing() {
		return
	}
	st := c.stats
	items, blocks := 0, 0
	for _, p := range st.Participants {
		items += p.Items
		blocks += p.Blocks
		if p.Busy < 0 || p.Idle < 0 || p.Busy+p.Idle > st.Elapsed {
			c.failf("stats: %s busy %v, idle %v, of %v", p.Name, p.Busy, p.Idle, st.Elapsed)
		}
	}
	if c.term.kind == tkStream && !(c.unordered && c.blocking > 0) && c.buffer > 0 && st.Buffered > c.buffer {
		c.failf("stats: a stream buffered %d items, over its buffer %d", st.Buffered, c.buffer)
	}
	if st.Buffered < 0 || st.BufferedBytes < 0 || st.SourceWait < 0 || st.ConsumerWait < 0 {
		c.failf("stats: buffered %d items (%d bytes), waits %v, %v", st.Buffered, st.BufferedBytes, st.SourceWait, st.ConsumerWait)
	}
	if items != st.Items || blocks != st.Blocks {
		c.failf("stats: the participants ran %d items in %d blocks, the operation %d in %d", items, blocks, st.Items, st.Blocks)
	}
	early := c.term.kind == tkSearch || c.breakAt > 0 && c.breakAt <= len(c.flat) || c.errAt != nil
	if !early && !c.cancelled() && c.allRan() && st.Items < c.idxN {
		c.failf("stats: %d items counted, of the %d indexes", st.Items, c.idxN)
	}
}

// checkSlow: WithSlow's hook ran at most once, and not for an operation
// that returned before its time.
func (c *diffCase) checkSlow() {
	n := c.slowCalls.Load()
	if n > 1 || (n > 0 && c.slowAfter == time.Hour) {
		c.failf("slow: the hook after %v ran %d times", c.slowAfter, n)
	}
}

// checkTimeline: the blocks recorded are disjoint, inside the source's
// indexes, no longer than WithBlockSize's max (outside Blocking), and
// cover every index when the operation ran every item.
func (c *diffCase) checkTimeline() {
	if c.timeline == nil || c.runsNothing() {
		return
	}
	lo, n := c.idxLo, c.idxN
	var blocks [][2]int
	for _, lane := range c.timeline.Lanes {
		for _, b := range lane.Blocks {
			blocks = append(blocks, [2]int{b.Lo, b.Hi})
		}
	}
	sort.Slice(blocks, func(a, b int) bool { return blocks[a][0] < blocks[b][0] })
	covered, end := 0, lo
	for _, b := range blocks {
		if b[0] >= b[1] || b[0] < end || b[1] > lo+n {
			c.failf("timeline: block %v overlaps another or lies outside [%d, %d)", b, lo, lo+n)
			return
		}
		if c.maxBlock > 0 && c.blocking == 0 && b[1]-b[0] > c.maxBlock {
			c.failf("timeline: block %v is longer than WithBlockSize's max %d", b, c.maxBlock)
		}
		covered, end = covered+b[1]-b[0], b[1]
	}
	early := c.term.kind == tkSearch || c.breakAt > 0 && c.breakAt <= len(c.flat) || c.errAt != nil
	if !early && !c.cancelled() && c.allRan() && covered != n {
		c.failf("timeline: the blocks cover %d of the %d indexes", covered, n)
	}
}
