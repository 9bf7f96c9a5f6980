package stageprogress

import (
	"context"
	"sync"
	"testing"
)

type call struct {
	stage       string
	done, total int
}

// TestCounter: a stage reports 0 first, then increasing counts at most
// about steps times, and done == total exactly once at the end, with
// concurrent Adds and a Done after the last unit.
func TestCounter(t *testing.T) {
	tests := []struct {
		name  string
		total int
		adds  int // units counted, concurrently
	}{
		{"all counted", 10000, 10000},
		{"some skipped", 1000, 700},
		{"empty", 0, 0},
		{"small", 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var calls []call
			ctx := WithFunc(context.Background(), func(stage string, done, total int) {
				mu.Lock()
				calls = append(calls, call{stage, done, total})
				mu.Unlock()
			})
			c := Start(ctx, Typing, tt.total)
			var wg sync.WaitGroup
			for w := 0; w < 4; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := w; i < tt.adds; i += 4 {
						c.Add(1)
					}
				}(w)
			}
			wg.Wait()
			c.Done()
			c.Done()
			if len(calls) < 2 || calls[0] != (call{Typing, 0, tt.total}) {
				t.Fatalf("calls %v: want a first call at 0", calls)
			}
			if len(calls) > steps+3 {
				t.Errorf("%d calls, want about %d at most", len(calls), steps)
			}
			ends := 0
			for i, c := range calls {
				if c.stage != Typing || c.total != tt.total {
					t.Errorf("call %d: %+v", i, c)
				}
				if i > 0 && c.done < calls[i-1].done {
					t.Errorf("call %d goes back: %d after %d", i, c.done, calls[i-1].done)
				}
				if c.done == c.total && i > 0 {
					ends++
				}
			}
			if last := calls[len(calls)-1]; last.done != tt.total || ends != 1 {
				t.Errorf("last call %+v, %d ends; want one end at %d", last, ends, tt.total)
			}
		})
	}
}

// TestNoFunc: without a Func nothing is counted and nothing fails.
func TestNoFunc(t *testing.T) {
	ctx := WithFunc(context.Background(), nil)
	c := Start(ctx, Summaries, 10)
	if c != nil {
		t.Fatal("a counter without a Func")
	}
	c.Add(1)
	c.Done()
}
