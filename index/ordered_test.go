package index

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestOrdered: results reach use in order whatever order the workers
// finish in; an error of work or use stops the run and is returned.
func TestOrdered(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name            string
		n, workers      int
		workErr, useErr int // item that fails (-1: none)
		want            error
	}{
		{"in order", 200, 4, -1, -1, nil},
		{"one worker", 50, 1, -1, -1, nil},
		{"none", 0, 3, -1, -1, nil},
		{"work fails", 200, 4, 120, -1, boom},
		{"use fails", 200, 4, -1, 7, boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			err := ordered(context.Background(), tt.n, tt.workers, 8, func(i int) (int, error) {
				if i%7 == 0 {
					time.Sleep(time.Millisecond) // finish out of order
				}
				if i == tt.workErr {
					return 0, boom
				}
				return i * 10, nil
			}, func(i, v int) error {
				if i == tt.useErr {
					return boom
				}
				got = append(got, v)
				return nil
			})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
			for k, v := range got {
				if v != k*10 {
					t.Fatalf("result %d is %d: out of order", k, v)
				}
			}
			if tt.want == nil && len(got) != tt.n {
				t.Errorf("%d results, want %d", len(got), tt.n)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ordered(ctx, 10, 2, 4, func(i int) (int, error) { return i, nil }, func(int, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
