// Package beam writes a data-parallel pipeline once and runs it either on
// gopar, in this process, or as an Apache Beam pipeline on any Beam runner:
// Prism on one machine, Dataflow, Flink or Spark across many.
//
// A pipeline is built from steps declared at package level, so that a Beam
// worker, which runs the same binary, finds them by name:
//
//	var words = beam.FlatMap("words", strings.Fields)
//
//	func main() {
//		flag.Parse()
//		beam.Init()
//		p := beam.NewPipeline()
//		lines := beam.Create(p, text)
//		perWord := beam.CollectKV(beam.CountPerElement(words.Apply(lines)))
//		if err := p.Run(context.Background(), beam.RunnerFromFlags()); err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(perWord.Values())
//	}
//
// Run with no flags, the pipeline runs on gopar's pool (par.FlatMap,
// par.Fold, ...); with -runner=prism (or dataflow, flink, spark, with their
// usual flags) it runs as a Beam job.
//
// # What maps
//
// Steps are the operations that take a user function; operations without
// one (Sum, Count, Min, Max, CountPerElement, SumPerKey, CountPerKey) are
// plain functions, since Beam's own transforms need no registration.
//
// Element-wise steps (Map, Filter, FilterMap, FlatMap, ToKV, FromKV) become
// ParDos; Fold and Reduce become a CombineFn (CreateAccumulator is init,
// AddInput is fold, MergeAccumulators is combine); Sum, Count, Min and Max
// become Beam's stats transforms; the per-key forms become CombinePerKey.
// docs/beyond-one-machine.md in the repository is the guide: what maps, what
// does not and why.
//
// # What this package refuses, and when
//
//   - A step declared after Init (or after Apache Beam's beam.Init): a worker
//     would not have it. Declare steps as package-level variables.
//   - Two steps with one name: the name is how a worker finds the step.
//   - Element and accumulator types that Beam would not carry intact: a
//     struct with an unexported field (Beam's row coder drops it: it would
//     arrive as zero after a shuffle), a func, a chan, an interface.
//   - A pointer inside a key type: it groups by address on gopar and by
//     value on Beam.
//   - Collect on a runner whose workers are not in this process: write the
//     collection with WriteText instead.
//
// These panic when the step is declared (or, for Collect, Run returns an
// error before the job starts), with a message that says what to do.
// FoldStep.CheckMerge checks in a test that a combine gives one answer in
// any merge order, as Beam needs.
//
// # What does not map, and is absent
//
// Order (Collect's source order, Reduce's index-order combine), early exit
// (Any, All, Find, FindFirst, TryForEach), Sort, Join and Scope, Blocking,
// FromSeq, and the reproducible float Sum (Sum takes integers only): a Beam
// collection has no order, every element is processed, and a float sum's
// last bits depend on how the runner splits the input. A combine must
// therefore be associative and commutative here, where gopar asks only for
// associativity.
//
// # Results
//
// On both runners the empty input gives gopar's answer: Sum and Count give
// 0, Fold and Reduce give init() and identity(), Min and Max give nothing
// (Output.Value reports false).
package beam
