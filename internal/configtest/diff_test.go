package configtest

import (
	"reflect"
	"testing"
	"time"
)

type inner struct {
	Wait time.Duration `mapstructure:"wait"`
}

type opts struct {
	Name   string   `mapstructure:"name"`
	On     bool     `mapstructure:"on"`
	List   []string `mapstructure:"list"`
	In     inner    `mapstructure:"in"`
	Flat   inner    `mapstructure:",squash"`
	Hidden int      `mapstructure:"-"`
}

// TestDiff: keys are dotted, squashed structs keep their parent's prefix,
// fields tagged "-" are not keys, nil and empty lists are equal.
func TestDiff(t *testing.T) {
	a := opts{Name: "a", List: []string{}, In: inner{time.Second}, Flat: inner{2}, Hidden: 1}
	b := opts{Name: "b", On: true, In: inner{time.Minute}, Flat: inner{3}}
	got := Diff("s", a, b)
	want := []string{"s.name: a, want b", "s.on: false, want true", "s.in.wait: 1s, want 1m0s", "s.wait: 2ns, want 3ns"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff = %q, want %q", got, want)
	}
}

// TestUnfilled: only what the defaults set counts, and never booleans or
// lists (their zero value is a setting).
func TestUnfilled(t *testing.T) {
	filled := opts{Name: "x"}
	defs := opts{Name: "x", On: true, List: []string{"l"}, In: inner{time.Second}}
	got := Unfilled("s", filled, defs)
	want := []string{"s.in.wait: 0s, want 1s"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Unfilled = %q, want %q", got, want)
	}
}
