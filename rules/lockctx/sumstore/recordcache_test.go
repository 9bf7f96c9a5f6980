package sumstore

import (
	"fmt"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
)

// TestRecordCache: the cache stays within its bound after every put, its
// size is the cost of what it holds, a record it answers is the one put,
// and a record asked for between puts outlives the others.
func TestRecordCache(t *testing.T) {
	rec := func(i int) *record {
		if i%9 == 0 {
			return nil // damaged records are cached too
		}
		return &record{deps: make([]index.Ref, i%5), members: []string{fmt.Sprint("m", i)}, rest: make([]byte, (i*37)%300)}
	}
	for _, tc := range []struct {
		name    string
		max     int64
		evicts  bool
		hotKept bool
	}{
		{"unbounded", 0, false, true},
		{"roomy", 1 << 20, false, true},
		{"small", 4 << 10, true, true},
		{"one record", 1, true, false}, // the hot record goes at the first put
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newRecordCache(tc.max)
			put := map[index.Ref]*record{}
			hot := index.MakeRef(0, 0)
			c.put(hot, rec(1))
			put[hot] = c.m[hot].rec
			for i := 1; i < 500; i++ {
				r := index.MakeRef(i, i%3)
				p := rec(i)
				c.put(r, p)
				put[r] = p
				c.get(hot)
				var sum int64
				for _, e := range c.m {
					sum += e.cost
				}
				if sum != c.size || len(c.ring) != len(c.m) {
					t.Fatalf("size %d, costs %d; ring %d, map %d", c.size, sum, len(c.ring), len(c.m))
				}
				if tc.max > 0 && c.size > tc.max && c.len() > 1 {
					t.Fatalf("after %d puts: %d bytes cached, bound %d", i, c.size, tc.max)
				}
			}
			for r, p := range put {
				if got, ok := c.get(r); ok && got != p {
					t.Fatalf("record %v: another record cached", r)
				}
			}
			if (c.evicted > 0) != tc.evicts {
				t.Errorf("%d evicted, want evictions %v", c.evicted, tc.evicts)
			}
			if _, ok := c.m[hot]; ok != tc.hotKept {
				t.Errorf("hot record kept %v, want %v", ok, tc.hotKept)
			}
		})
	}
}
