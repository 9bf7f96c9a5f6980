package ctxsleep

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want error
	}{
		{"full wait", context.Background(), time.Millisecond, nil},
		{"no wait", context.Background(), 0, nil},
		{"negative", context.Background(), -time.Second, nil},
		{"cancelled before", cancelled, time.Hour, context.Canceled},
		{"cancelled, no wait", cancelled, 0, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			err := Sleep(tc.ctx, tc.d)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("Sleep = %v, want %v", err, tc.want)
			}
			if tc.want != nil && time.Since(start) > time.Minute {
				t.Fatal("a done context did not end the wait")
			}
		})
	}
	ctx, cancel2 := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel2()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("deadline during the wait: %v", err)
	}
}
