package rules

import (
	"errors"
	"strings"
	"testing"
)

func TestBuildChecks(t *testing.T) {
	ok := func(name string) Constructor {
		return func(Options) (*Rule, error) {
			return &Rule{Name: name, Doc: "d", Categories: []Category{{Name: name + "-x", Doc: "d"}}, Run: func(*Pass) error { return nil }}, nil
		}
	}
	bad := func(Options) (*Rule, error) { return nil, errors.New("table x.yaml: bad") }
	tests := []struct {
		name string
		cs   []Constructor
		err  string
	}{
		{"ok", []Constructor{ok("a"), ok("b")}, ""},
		{"duplicate", []Constructor{ok("a"), ok("a")}, "registered twice"},
		{"category named like a rule", []Constructor{ok("a"), ok("a-x")}, "registered twice"},
		{"failing", []Constructor{ok("a"), bad}, "rule family 2: table x.yaml: bad"},
		{"incomplete", []Constructor{func(Options) (*Rule, error) { return &Rule{Name: "x"}, nil }}, "incomplete"},
	}
	for _, tc := range tests {
		rs, err := Build(Options{}, tc.cs)
		if tc.err == "" {
			if err != nil || len(rs) != len(tc.cs) {
				t.Errorf("%s: %v %d", tc.name, err, len(rs))
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
}
