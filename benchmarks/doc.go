// Package benchmarks holds the workloads W0..W9 (README.md defines them) and, for each,
// the implementations gopar is measured against: a plain loop (seq), the hand-rolled
// fan-outs gopar replaces (static, static-fn, dynamic, one goroutine per item), the
// peers a Go user would pick instead (errgroup, conc, pargo), and gopar itself.
// Toolkit (T1..T7) holds the figures of the toolkit (Fold, Sort, FromSeq,
// TryMap, the reproducible float Sum), each against the code it replaces.
// Streams (S1..S7) and Keyed (K1..K3: GroupBy and its kin) do the same for
// the fan-outs over a stream and the reductions into a map, and Recursion
// (R1, R2) for fork-join at every node of a tree.
//
// Every implementation of a workload returns the same checksum; TestChecksums checks
// that they agree. The workloads are timed two ways:
//
//   - as testing.B benchmarks, one per workload with one sub-benchmark per
//     implementation (go test -bench . -count 10 | benchstat);
//   - by the compare command (go run ./cmd/compare), which alternates the
//     implementations of a workload round by round, takes medians, and prints the
//     ratios set as the workloads' targets, with PASS or MISS for each.
//
// Where a workload counts its items (Workload.Items: W9), both also report
// the heap allocations per item of each implementation.
//
// This is its own module so that users of gopar never download the peers.
package benchmarks
