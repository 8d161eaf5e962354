package benchmarks

// Streams lists the stream workloads (S1 to S7, and the bounded-memory
// check), the fan-outs Go programs write over a producer, a lister, a file
// or a directory walk rather than an index: README.md, "Streams". Each file
// that defines one adds it here in its init.
var Streams []*Workload
