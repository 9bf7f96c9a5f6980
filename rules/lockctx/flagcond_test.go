package lockctx

import (
	"slices"
	"testing"
)

func TestFlagTest(t *testing.T) {
	for _, tc := range []struct {
		cond    string
		name    string
		nonzero bool
		ok      bool
	}{
		{"can_sleep", "can_sleep", true, true},
		{"!can_sleep", "can_sleep", false, true},
		{"(!(may_sleep))", "may_sleep", false, true},
		{"unlikely(!atomic)", "atomic", false, true},
		{"wait == false", "wait", false, true},
		{"wait != 0", "wait", true, true},
		{"wait == 1", "wait", true, true},
		{"flags & FOO", "", false, false},
		{"x == y", "", false, false},
		{"p->can_sleep", "", false, false},
	} {
		name, nonzero, ok := flagTest(tc.cond)
		if name != tc.name || nonzero != tc.nonzero || ok != tc.ok {
			t.Errorf("flagTest(%q) = %q, %v, %v; want %q, %v, %v", tc.cond, name, nonzero, ok, tc.name, tc.nonzero, tc.ok)
		}
	}
}

func TestSplitTop(t *testing.T) {
	got := splitTop(unwrap("(a && (b && c) && !d)"), "&&")
	if want := []string{"a ", " (b && c) ", " !d"}; !slices.Equal(got, want) {
		t.Errorf("splitTop = %q, want %q", got, want)
	}
}

func TestLiteralTruth(t *testing.T) {
	for s, want := range map[string][2]bool{
		"true": {true, true}, "false": {false, true}, "0": {false, true}, "1UL": {true, true},
		"0x10": {true, true}, "NULL": {false, true}, "CAN_SLEEP": {false, false},
	} {
		if v, ok := literalTruth(s); v != want[0] || ok != want[1] {
			t.Errorf("literalTruth(%q) = %v, %v; want %v, %v", s, v, ok, want[0], want[1])
		}
	}
}
