package steal

import (
	"sync"
	"testing"
)

// The baselines do the same jobs as the Deque: a slice guarded by a mutex
// (push and pop at the end, steal from the front) and a buffered channel
// (which can only be FIFO, so its "pop" is a receive).

type mutexDeque struct {
	mu    sync.Mutex
	items []*item
	head  int
}

func (m *mutexDeque) push(x *item) {
	m.mu.Lock()
	m.items = append(m.items, x)
	m.mu.Unlock()
}

func (m *mutexDeque) pop() *item {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.items) == m.head {
		return nil
	}
	x := m.items[len(m.items)-1]
	m.items[len(m.items)-1] = nil
	m.items = m.items[:len(m.items)-1]
	return x
}

func (m *mutexDeque) steal() *item {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.items) == m.head {
		return nil
	}
	x := m.items[m.head]
	m.items[m.head] = nil
	m.head++
	if m.head == len(m.items) {
		m.items, m.head = m.items[:0], 0
	}
	return x
}

// benchChanCap is the channel baseline's buffer: big enough that the producer
// rarely blocks, as the other queues never do.
const benchChanCap = 4096

// BenchmarkPushPop measures one Push followed by one Pop on the owner's
// goroutine, with a few items kept below so that Pop takes its uncontested
// path (the common case in a fork-join worker).
func BenchmarkPushPop(b *testing.B) {
	it := &item{}
	b.Run("Deque", func(b *testing.B) {
		var d Deque[item]
		for range 4 {
			d.Push(it)
		}
		for range b.N {
			d.Push(it)
			if d.Pop() == nil {
				b.Fatal("empty")
			}
		}
	})
	b.Run("Mutex", func(b *testing.B) {
		var m mutexDeque
		for range 4 {
			m.push(it)
		}
		for range b.N {
			m.push(it)
			if m.pop() == nil {
				b.Fatal("empty")
			}
		}
	})
	b.Run("Chan", func(b *testing.B) {
		c := make(chan *item, benchChanCap)
		for range 4 {
			c <- it
		}
		for range b.N {
			c <- it
			if <-c == nil {
				b.Fatal("empty")
			}
		}
	})
}

// BenchmarkSteal measures moving b.N items from an owner goroutine that pushes
// them to a thief goroutine that steals them; ns/op is per item. Both
// goroutines run at once only if the machine has a second core free.
func BenchmarkSteal(b *testing.B) {
	it := &item{}
	run := func(b *testing.B, push func(), steal func() bool) {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < b.N; {
				if steal() {
					n++
				}
			}
		}()
		for range b.N {
			push()
		}
		wg.Wait()
	}
	b.Run("Deque", func(b *testing.B) {
		var d Deque[item]
		run(b, func() { d.Push(it) }, func() bool { _, s := d.Steal(); return s == Success })
	})
	b.Run("Mutex", func(b *testing.B) {
		var m mutexDeque
		run(b, func() { m.push(it) }, func() bool { return m.steal() != nil })
	})
	b.Run("Chan", func(b *testing.B) {
		c := make(chan *item, benchChanCap)
		run(b, func() { c <- it }, func() bool { <-c; return true })
	})
}

// BenchmarkStealUncontended measures one Push and one Steal on the same
// goroutine: the cost of the steal path itself, without cache-line transfers.
func BenchmarkStealUncontended(b *testing.B) {
	it := &item{}
	b.Run("Deque", func(b *testing.B) {
		var d Deque[item]
		for range b.N {
			d.Push(it)
			if _, s := d.Steal(); s != Success {
				b.Fatal(s)
			}
		}
	})
	b.Run("Mutex", func(b *testing.B) {
		var m mutexDeque
		for range b.N {
			m.push(it)
			if m.steal() == nil {
				b.Fatal("empty")
			}
		}
	})
	b.Run("Chan", func(b *testing.B) {
		c := make(chan *item, benchChanCap)
		for range b.N {
			c <- it
			<-c
		}
	})
}

// BenchmarkInjector measures one Push and one Steal on the same goroutine,
// against the same baselines used as FIFO queues.
func BenchmarkInjector(b *testing.B) {
	it := &item{}
	b.Run("Injector", func(b *testing.B) {
		var q Injector[item]
		b.ReportAllocs()
		for range b.N {
			q.Push(it)
			if _, s := q.Steal(); s != Success {
				b.Fatal(s)
			}
		}
	})
	b.Run("Mutex", func(b *testing.B) {
		var m mutexDeque
		b.ReportAllocs()
		for range b.N {
			m.push(it)
			if m.steal() == nil {
				b.Fatal("empty")
			}
		}
	})
	b.Run("Chan", func(b *testing.B) {
		c := make(chan *item, benchChanCap)
		b.ReportAllocs()
		for range b.N {
			c <- it
			<-c
		}
	})
}
