package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/autosel-bot/autosel-bot/daemon"
	"github.com/autosel-bot/autosel-bot/github"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/configtest"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/reply"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/runner"
	"github.com/autosel-bot/autosel-bot/runner/actions"
	"github.com/autosel-bot/autosel-bot/runner/lava"
	"github.com/autosel-bot/autosel-bot/stable"
	"github.com/autosel-bot/autosel-bot/web"
)

// TestDefaultsDocumented: config.yaml is the documentation of the
// defaults, so the configuration decoded with no file and no environment
// (the embedded config.yaml alone) must be, key by key, the defaults of the
// packages that own each section (their DefaultOptions, which their code
// fills into unset settings). rules and web have no DefaultOptions: their
// zero values are the defaults (no extra tables, no base URL).
func TestDefaultsDocumented(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(v, "")
	if err != nil {
		t.Fatal(err)
	}
	sections := []struct {
		key       string
		got, want any
	}{
		{"stable", c.Stable, stable.DefaultOptions()},
		{"runner", c.Runner.Options, runner.DefaultOptions()},
		{"runner.lava", c.Runner.Lava, lava.DefaultOptions()},
		{"sandbox", c.Sandbox, sandbox.DefaultOptions()},
		{"check", c.Check, pipeline.DefaultCheckOptions()},
		{"watch", c.Watch, daemon.DefaultWatchOptions()},
		{"index", c.Index, index.DefaultSettings()},
		{"github", c.GitHub.Options, github.DefaultOptions()},
		{"github.actions", c.GitHub.Actions, actions.DefaultOptions()},
		{"reply", c.Reply, reply.DefaultOptions()},
		{"rules", c.Rules, rules.Options{}},
		{"web", c.Web, web.Options{}},
	}
	for _, s := range sections {
		for _, d := range configtest.Diff(s.key, s.got, s.want) {
			t.Errorf("config.yaml %s (code's default)", d)
		}
	}
}

// TestZeroIsDefault: 0 means the same in every section: the documented
// default. An explicit runner.retries: 0 is the default (as github.retries:
// 0 is, see package github), a negative value none.
func TestZeroIsDefault(t *testing.T) {
	tests := []struct {
		yaml string
		want int
	}{
		{"runner:\n  retries: 0\n", 1},
		{"runner:\n  retries: -1\n", 0},
		{"runner:\n  retries: 3\n", 3},
	}
	for _, tc := range tests {
		file := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(file, []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := New()
		if err != nil {
			t.Fatal(err)
		}
		c, err := Load(v, file)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Runner.Options.WithDefaults().Retries; got != tc.want {
			t.Errorf("%q: runner retries %d, want %d", tc.yaml, got, tc.want)
		}
	}
}
