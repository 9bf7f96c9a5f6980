package retry

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// TestDelay: doubling from Min, capped at Max, no overflow far out, and a
// jitter that only shortens.
func TestDelay(t *testing.T) {
	s := time.Second
	tests := []struct {
		p    Policy
		n    int
		want time.Duration
	}{
		{Policy{Min: s, Max: 5 * s}, 0, s},
		{Policy{Min: s, Max: 5 * s}, 1, 2 * s},
		{Policy{Min: s, Max: 5 * s}, 2, 4 * s},
		{Policy{Min: s, Max: 5 * s}, 3, 5 * s},
		{Policy{Min: s, Max: 5 * s}, 200, 5 * s},
		{Policy{Min: s}, 3, 8 * s},
		{Policy{Min: s, Max: time.Hour}, 100, time.Hour},
		{Policy{Min: s, Max: 4 * s, Jitter: 0.5, Rand: func() float64 { return 1 }}, 2, 2 * s},
		{Policy{Min: s, Max: 4 * s, Jitter: 0.5, Rand: func() float64 { return 0 }}, 2, 4 * s},
		{Policy{Min: s, Max: 4 * s, Jitter: 3, Rand: func() float64 { return 0.5 }}, 0, s / 2},
		{Policy{}, 4, 0},
	}
	for _, tc := range tests {
		if got := tc.p.Delay(tc.n); got != tc.want {
			t.Errorf("%+v.Delay(%d) = %v, want %v", tc.p, tc.n, got, tc.want)
		}
	}
	// Real jitter stays within [d*(1-Jitter), d].
	p := Policy{Min: s, Max: s, Jitter: 0.25}
	for i := 0; i < 100; i++ {
		if d := p.Delay(0); d < 750*time.Millisecond || d > s {
			t.Fatalf("jittered delay %v out of [750ms, 1s]", d)
		}
	}
}

// TestBackoff: Next walks the delays, Reset starts again.
func TestBackoff(t *testing.T) {
	b := Policy{Min: time.Second, Max: 5 * time.Second}.New()
	var got []time.Duration
	for i := 0; i < 5; i++ {
		got = append(got, b.Next())
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("delays %v, want %v", got, want)
	}
	b.Reset()
	if d := b.Next(); d != time.Second {
		t.Errorf("after Reset: %v", d)
	}
}

// TestDo: success after failures, attempts exhausted, a permanent error,
// and a context that ends during a wait.
func TestDo(t *testing.T) {
	errTemp, errPerm := errors.New("temporary"), errors.New("permanent")
	var waits []time.Duration
	p := Policy{Min: time.Millisecond, Max: 4 * time.Millisecond, MaxAttempts: 4,
		Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return ctx.Err() }}
	tests := []struct {
		name      string
		errs      []error
		want      error
		calls     int
		wantWaits []time.Duration
	}{
		{"ok", nil, nil, 1, nil},
		{"ok after two", []error{errTemp, errTemp}, nil, 3, []time.Duration{time.Millisecond, 2 * time.Millisecond}},
		{"exhausted", []error{errTemp, errTemp, errTemp, errTemp, errTemp}, errTemp, 4,
			[]time.Duration{time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond}},
		{"permanent", []error{errTemp, Permanent(errPerm)}, errPerm, 2, []time.Duration{time.Millisecond}},
	}
	for _, tc := range tests {
		waits = nil
		calls, retried := 0, 0
		err := Do(context.Background(), p, func(context.Context) error {
			calls++
			if calls <= len(tc.errs) {
				return tc.errs[calls-1]
			}
			return nil
		}, func(error, time.Duration) { retried++ })
		if err != tc.want || calls != tc.calls || !reflect.DeepEqual(waits, tc.wantWaits) || retried != len(tc.wantWaits) {
			t.Errorf("%s: err %v, %d calls, waits %v, %d retries; want %v, %d calls, waits %v",
				tc.name, err, calls, waits, retried, tc.want, tc.calls, tc.wantWaits)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := Do(ctx, Policy{Min: time.Hour}, func(context.Context) error {
		calls++
		cancel()
		return errTemp
	}, nil)
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("cancelled: err %v after %d calls", err, calls)
	}
	if Permanent(nil) != nil {
		t.Error("Permanent(nil) is not nil")
	}
}
