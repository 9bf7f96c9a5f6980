package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestGitHubDefaultsAndSecrets(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(v, "")
	if err != nil {
		t.Fatal(err)
	}
	g := c.GitHub
	if len(g.Repos) != 0 || g.TokenEnv != "GITHUB_TOKEN" || g.PollInterval != 2*time.Minute || g.CheckName != "autosel-bot" ||
		g.Webhook.Path != "/github/webhook" || g.Actions.Enabled || g.Actions.Workflow != "autosel-vm.yml" || g.Actions.Accel != "kvm" ||
		g.Actions.RunTimeout != 90*time.Minute || g.MaxRateWait != 15*time.Minute {
		t.Errorf("defaults: %+v", g)
	}
	if err := g.Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
	t.Setenv("AUTOSEL_TEST_GH_TOKEN", " tok \n")
	g.TokenEnv = "AUTOSEL_TEST_GH_TOKEN"
	if tok, err := g.Token(); err != nil || tok != "tok" {
		t.Errorf("token from env: %q %v", tok, err)
	}
	f := filepath.Join(t.TempDir(), "tok")
	os.WriteFile(f, []byte("filetok\n"), 0o600)
	g.TokenFile = f
	if tok, err := g.Token(); err != nil || tok != "filetok" {
		t.Errorf("token from file: %q %v", tok, err)
	}
	if _, err := g.Webhook.Secret(); err == nil {
		t.Error("webhook without a secret accepted")
	}
	for _, bad := range []GitHubConfig{
		{Repos: []string{"noslash"}},
		{Repos: []string{"a/b/c"}},
		{Webhook: GitHubWebhookConfig{Addr: ":1"}},
		{Actions: GitHubActionsConfig{Enabled: true}},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}
