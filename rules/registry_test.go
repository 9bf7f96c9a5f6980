package rules

import (
	"errors"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

func TestAllBuilds(t *testing.T) {
	rs, err := All(Options{Depth: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Name == "" || r.Doc == "" || r.Run == nil {
			t.Errorf("rule %+v is incomplete", r)
		}
	}
}

func TestBuildChecks(t *testing.T) {
	ok := func(name string) Constructor {
		return func(Options) (*Rule, error) {
			return &Rule{Name: name, Doc: "d", Run: func(*Pass) ([]report.Finding, error) { return nil, nil }}, nil
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
		{"failing", []Constructor{ok("a"), bad}, "rule family 2: table x.yaml: bad"},
		{"incomplete", []Constructor{func(Options) (*Rule, error) { return &Rule{Name: "x"}, nil }}, "incomplete"},
	}
	for _, tc := range tests {
		rs, err := build(Options{}, tc.cs)
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
