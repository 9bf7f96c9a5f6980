package par

import (
	"strings"
	"sync/atomic"
	"testing"
)

// TestEach: every index is visited exactly once, whatever n.
func TestEach(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1000} {
		calls := make([]atomic.Int32, n)
		var total atomic.Int32
		Each(n, func(i int) {
			calls[i].Add(1)
			total.Add(1)
		})
		if int(total.Load()) != n {
			t.Errorf("n=%d: %d calls", n, total.Load())
		}
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n=%d: index %d called %d times", n, i, c)
			}
		}
	}
}

// TestEachPanic: a panic in f reaches the caller, whatever the workers.
func TestEachPanic(t *testing.T) {
	for _, n := range []int{1, 10} {
		got := func() (v any) {
			defer func() { v = recover() }()
			Each(n, func(i int) {
				if i == n/2 {
					panic("boom")
				}
			})
			return nil
		}()
		if p, ok := got.(*Panic); ok {
			// On a worker: the value, with the stack where f panicked.
			if p.Value != "boom" || !strings.Contains(string(p.Stack), "TestEachPanic") {
				t.Errorf("n=%d: recovered %v from a worker, want boom with f's stack", n, p)
			}
		} else if got != "boom" {
			t.Errorf("n=%d: recovered %v, want boom", n, got)
		}
	}
}
