package benchmarks

// A loop is a workload of the form "sum of item(i) for i in [0, n)", from which
// the baselines and peers are derived.
type loop struct {
	n int
	// item computes one item; the *-fn, goroutine-per-item and per-item gopar
	// implementations call it through a func value.
	item func(i int) uint64
	// block is the same loop written out over [lo, hi), item inlined; the seq,
	// static, dynamic and peer implementations run it.
	block func(lo, hi int) uint64
	// chunk is the fixed number of items per chunk for dynamic and the peers.
	chunk int
	// perItem reports whether one goroutine per item is feasible at this n.
	perItem bool
	// pools adds the goroutine pools ants and pond as peers (pools.go).
	pools bool
}

// baselines returns the implementations of l that do not use gopar, seq first.
func (l loop) baselines() []Impl {
	impls := []Impl{
		{"seq", func() uint64 { return l.block(0, l.n) }},
		{"seq-fn", func() uint64 { return seqFn(l.n, l.item) }},
		{"static", func() uint64 { return static(l.n, l.block) }},
		{"static-fn", func() uint64 { return staticFn(l.n, l.item) }},
		{"dynamic", func() uint64 { return dynamic(l.n, l.chunk, l.block) }},
	}
	if l.perItem {
		// The uneven loops: the dynamic fan-out through a func value is the
		// per-item API's floor there, as static-fn is on the balanced ones.
		impls = append(impls, Impl{"dynamic-fn", func() uint64 { return dynamicFn(l.n, l.chunk, l.item) }})
		impls = append(impls, Impl{"goroutine", func() uint64 { return perItem(l.n, l.item) }})
	}
	impls = append(impls,
		Impl{"errgroup", func() uint64 { return withErrgroup(l.n, l.chunk, l.block) }},
		Impl{"conc", func() uint64 { return withConc(l.n, l.chunk, l.block) }},
		Impl{"pargo", func() uint64 { return withPargo(l.n, l.chunk, l.block) }},
	)
	if l.pools {
		impls = append(impls, l.poolPeers()...)
	}
	return append(impls, l.perItemPeers()...)
}

// perItemPeers returns the peers' per-item forms of l, where their result
// slices fit (see maxPerItemPeer).
func (l loop) perItemPeers() []Impl {
	if l.n > maxPerItemPeer {
		return nil
	}
	return []Impl{
		{"conc-map-item", func() uint64 { return withConcMap(l.n, l.item) }},
		{"conc-foreach-item", func() uint64 { return withConcForEach(l.n, l.item) }},
	}
}
