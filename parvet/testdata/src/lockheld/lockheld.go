// Package lockheld holds mutexes held across gopar calls: those whose
// callbacks lock them again, reported, and those that do not.
package lockheld

import (
	"sync"

	"github.com/gopar-dev/gopar/par"
)

type cache struct {
	mu    sync.Mutex
	other sync.Mutex
	m     map[string]int
}

func (c *cache) put(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = len(k)
}

// putLocked expects c.mu held.
func (c *cache) putLocked(k string) { c.m[k] = len(k) }

func (c *cache) store(k string) { c.put(k) }

func (c *cache) note(k string) {
	c.other.Lock()
	defer c.other.Unlock()
	_ = k
}

// The new user's case: the mutex held around the ForEach, put locks it.
func (c *cache) fill(keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	par.Slice(keys).ForEach(func(k string) { c.put(k) }) // want `deadlock: c.mu is locked \(line 36\) across this ForEach, and its callback locks it again \(in put\): a sync mutex is not reentrant`
}

// A method value as the callback.
func (c *cache) fillValue(keys []string) {
	c.mu.Lock()
	par.Slice(keys).ForEach(c.put) // want `deadlock: c.mu is locked \(line 43\) across this ForEach, and its callback locks it again \(in put\)`
	c.mu.Unlock()
}

// Two calls deep.
func (c *cache) fillDeep(keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	par.Slice(keys).ForEach(func(k string) { c.store(k) }) // want `its callback locks it again \(in put, called from store\)`
}

var (
	mu    sync.Mutex
	total int
)

// A package-level mutex, locked in the callback itself.
func sum(xs []int) {
	mu.Lock()
	defer mu.Unlock()
	par.Slice(xs).ForEach(func(x int) { // want `deadlock: mu is locked \(line 62\) across this ForEach, and its callback locks it again:`
		mu.Lock()
		total += x
		mu.Unlock()
	})
}

type store struct {
	sync.Mutex
	m map[int]int
}

func (s *store) set(k int) {
	s.Lock()
	s.m[k] = k
	s.Unlock()
}

// A struct that embeds the mutex.
func (s *store) fill(n int) {
	s.Lock()
	defer s.Unlock()
	par.Range(0, n).ForEach(s.set) // want `deadlock: s is locked .* \(in set\)`
}

type table struct {
	mu sync.RWMutex
	m  map[string]int
}

func (t *table) get(k string) int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.m[k]
}

// Written to while held for writing.
func (t *table) refresh(keys []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	par.Join(func() { t.get(keys[0]) }, func() {}) // want `deadlock: t.mu is locked .* across this Join, and its callback locks it again \(in get\)`
}

// Read locks on both sides: not reported.
func (t *table) sumAll(keys []string) int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return par.Map(par.Slice(keys), t.get).Reduce(func() int { return 0 }, func(a, b int) int { return a + b })
}

// Unlocked before the call.
func (c *cache) fillAfter(keys []string) {
	c.mu.Lock()
	c.m = map[string]int{}
	c.mu.Unlock()
	par.Slice(keys).ForEach(c.put)
}

// The callback expects the lock held and takes no lock.
func (c *cache) fillLocked(keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	par.Slice(keys).ForEach(func(k string) { c.putLocked(k) }) // a race, not a deadlock: callbackrace's business
}

// Another mutex of the same struct.
func (c *cache) noteAll(keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	par.Slice(keys).ForEach(c.note)
}

// The same mutex of another value.
func (c *cache) copyTo(d *cache, keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	par.Slice(keys).ForEach(d.put)
}

// Locked and unlocked in a branch before the call.
func (c *cache) maybe(keys []string, reset bool) {
	if reset {
		c.mu.Lock()
		c.m = map[string]int{}
		c.mu.Unlock()
	}
	par.Slice(keys).ForEach(c.put)
}

// Unlocked in the branch that calls.
func (c *cache) branch(keys []string, ok bool) {
	c.mu.Lock()
	if ok {
		c.mu.Unlock()
		par.Slice(keys).ForEach(c.put)
		return
	}
	c.mu.Unlock()
}

// The callback starts a goroutine that locks: the callback does not wait.
func (c *cache) background(keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	par.Slice(keys).ForEach(func(k string) { go c.put(k) })
}
