package main

import (
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, stderr := runCLI(t, "", args...)
		if code != 0 || !strings.HasPrefix(out, "autosel-bot ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("%v: exit %d, out %q, stderr %q", args, code, out, stderr)
		}
	}
}

func TestFlagCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "check", "--format", ""}, []string{"text", "json", "email", "terse", "sarif"}},
		{[]string{"__complete", "check", "--fail-on", ""}, []string{"note", "risk"}},
		{[]string{"__complete", "test", "--format", ""}, []string{"text", "json", "kcidb"}},
	}
	for _, tc := range tests {
		_, out, _ := runCLI(t, "", tc.args...)
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if l == "" || strings.HasPrefix(l, ":") {
				continue
			}
			v, _, _ := strings.Cut(l, "\t")
			got = append(got, v)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%v: %v, want %v", tc.args, got, tc.want)
		}
	}
}
