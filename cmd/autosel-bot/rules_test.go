package main

import (
	"strings"
	"testing"
)

func TestRulesCmd(t *testing.T) {
	code, out, errs := runCLI(t, "", "rules")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"sleep-in-atomic\n", "  sleep-needs-tree\n", "wakeup\n", "  lost-wakeup\n", "  wakeup-exclusive\n", "Sleeping calls in atomic context"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 80 && strings.Contains(l, " ") {
			t.Errorf("line not wrapped (%d chars): %q", len(l), l)
		}
	}
	if code, _, _ := runCLI(t, "", "rules", "extra"); code != 2 {
		t.Errorf("rules with an argument: exit %d, want 2", code)
	}
}
