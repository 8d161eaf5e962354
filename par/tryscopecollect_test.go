package par_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// collectTree is a task of a tree of fanout children per node down to
// depth that emits its node number before and after starting its
// children, sleeping a little at random, so that the schedule varies.
func collectTree(fanout, depth int) func(k, d int) func(context.Context, *par.CollectGroup[int]) error {
	var node func(k, d int) func(context.Context, *par.CollectGroup[int]) error
	node = func(k, d int) func(context.Context, *par.CollectGroup[int]) error {
		return func(ctx context.Context, g *par.CollectGroup[int]) error {
			g.Emit(k)
			if rand.IntN(4) == 0 {
				time.Sleep(time.Duration(rand.IntN(50)) * time.Microsecond)
			}
			if d < depth {
				for c := 1; c <= fanout; c++ {
					g.Go(node(k*fanout+c, d+1))
				}
			}
			g.Emit(-k - 1)
			return nil
		}
	}
	return node
}

// treeOrder is what collectTree gives on one goroutine, depth first.
func treeOrder(out []int, fanout, depth, k, d int) []int {
	out = append(out, k)
	if d < depth {
		for c := 1; c <= fanout; c++ {
			out = treeOrder(out, fanout, depth, k*fanout+c, d+1)
		}
	}
	return append(out, -k-1)
}

// TestTryScopeCollectOrder: the results come in the order of a
// depth-first run on one goroutine, whatever the limit and the schedule.
func TestTryScopeCollectOrder(t *testing.T) {
	const fanout, depth = 3, 5
	want := append([]int{1000}, treeOrder(nil, fanout, depth, 0, 0)...)
	want = append(want, 2000)
	for _, limit := range []int{1, 2, 16} {
		for range 3 {
			got, err := par.TryScopeCollect(context.Background(), limit, func(ctx context.Context, g *par.CollectGroup[int]) error {
				g.Emit(1000)
				g.Go(collectTree(fanout, depth)(0, 0))
				g.Emit(2000)
				return nil
			})
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("limit %d: %d results, error %v; want the %d of the walk on one goroutine, in its order", limit, len(got), err, len(want))
			}
		}
	}
	got, err := par.TryScopeCollect(context.Background(), 2, func(context.Context, *par.CollectGroup[string]) error { return nil })
	if got == nil || len(got) != 0 || err != nil {
		t.Errorf("no results: %#v, %v; want an empty, non-nil slice", got, err)
	}
}

// TestTryScopeCollectFailure: an error or a done context gives no
// results, and the error TryScope would return; a panic reaches the
// caller; Emit and Go after the scope has ended panic.
func TestTryScopeCollectFailure(t *testing.T) {
	boom := errors.New("boom")
	got, err := par.TryScopeCollect(context.Background(), 4, func(ctx context.Context, g *par.CollectGroup[int]) error {
		for i := range 100 {
			g.Go(func(ctx context.Context, g *par.CollectGroup[int]) error {
				g.Emit(i)
				if i == 50 {
					return fmt.Errorf("task %d: %w", i, boom)
				}
				return nil
			})
		}
		return nil
	})
	if got != nil || !errors.Is(err, boom) {
		t.Errorf("a task's error: %d results, %v", len(got), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err = par.TryScopeCollect(ctx, 4, func(ctx context.Context, g *par.CollectGroup[int]) error {
		g.Go(func(context.Context, *par.CollectGroup[int]) error { return nil })
		return nil
	})
	if got != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("a done context: %d results, %v", len(got), err)
	}
	v := catch(func() {
		_, _ = par.TryScopeCollect(context.Background(), 2, func(ctx context.Context, g *par.CollectGroup[int]) error {
			g.Go(func(context.Context, *par.CollectGroup[int]) error { panic("task boom") })
			return nil
		})
	})
	if p, ok := v.(*runtime.Panic); !ok || p.Value != "task boom" {
		t.Errorf("a task's panic came back as %#v", v)
	}
	var saved *par.CollectGroup[int]
	_, _ = par.TryScopeCollect(context.Background(), 2, func(ctx context.Context, g *par.CollectGroup[int]) error {
		saved = g
		return nil
	})
	for name, f := range map[string]func(){
		"Emit": func() { saved.Emit(1) },
		"Go":   func() { saved.Go(func(context.Context, *par.CollectGroup[int]) error { return nil }) },
	} {
		if v := catch(f); !strings.Contains(fmt.Sprint(v), "after its TryScopeCollect ended") {
			t.Errorf("%s after the end: recovered %#v", name, v)
		}
	}
}
