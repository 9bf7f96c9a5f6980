package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// GitHubConfig configures the github section (see config.yaml): pull
// requests reviewed by `watch`, and the github-actions VM backend.
type GitHubConfig struct {
	// Repos are the repositories ("owner/name") whose pull requests watch
	// reviews; empty: none.
	Repos []string `mapstructure:"repos"`
	// TokenEnv names the environment variable holding the API token.
	TokenEnv string `mapstructure:"token_env"`
	// TokenFile is a file holding the token; it wins over TokenEnv.
	TokenFile string `mapstructure:"token_file"`
	// APIURL and UploadURL are the REST roots (GitHub Enterprise:
	// https://HOST/api/v3/ and https://HOST/api/uploads/).
	APIURL    string `mapstructure:"api_url"`
	UploadURL string `mapstructure:"upload_url"`
	// PollInterval is the time between two listings of open pull requests.
	PollInterval time.Duration `mapstructure:"poll_interval"`
	// Workers is how many pull requests are analysed at once.
	Workers int `mapstructure:"workers"`
	// CheckName names the check run.
	CheckName string `mapstructure:"check_name"`
	// MaxCommits skips pull requests with more commits.
	MaxCommits int `mapstructure:"max_commits"`
	// MaxAttempts is how often a PR head is tried before it is given up.
	MaxAttempts int `mapstructure:"max_attempts"`
	// Notes posts note-level findings as line comments too.
	Notes bool `mapstructure:"notes"`
	// Drafts reviews draft pull requests too.
	Drafts bool `mapstructure:"drafts"`
	// Retries, Backoff, MaxBackoff and MaxRateWait govern retries of 5xx
	// answers and waits for rate limits.
	Retries     int           `mapstructure:"retries"`
	Backoff     time.Duration `mapstructure:"backoff"`
	MaxBackoff  time.Duration `mapstructure:"max_backoff"`
	MaxRateWait time.Duration `mapstructure:"max_rate_wait"`
	// WriteGap spaces POST/PATCH/PUT/DELETE requests.
	WriteGap time.Duration `mapstructure:"write_gap"`
	// Webhook is the optional pull_request event receiver.
	Webhook GitHubWebhookConfig `mapstructure:"webhook"`
	// Actions is the github-actions runner backend.
	Actions GitHubActionsConfig `mapstructure:"actions"`
}

// GitHubWebhookConfig configures the webhook receiver.
type GitHubWebhookConfig struct {
	// Addr is the listen address; empty: no receiver (polling only).
	Addr string `mapstructure:"addr"`
	// Path is the URL path deliveries are posted to.
	Path string `mapstructure:"path"`
	// SecretEnv and SecretFile hold the webhook secret (required).
	SecretEnv  string `mapstructure:"secret_env"`
	SecretFile string `mapstructure:"secret_file"`
}

// GitHubActionsConfig configures the github-actions runner backend.
type GitHubActionsConfig struct {
	// Enabled makes the VM stage boot on GitHub Actions instead of here.
	Enabled bool `mapstructure:"enabled"`
	// Repo holds the workflow and the release carrying the bundles.
	Repo string `mapstructure:"repo"`
	// Ref is the branch the workflow is dispatched on.
	Ref string `mapstructure:"ref"`
	// Workflow is the workflow file name.
	Workflow string `mapstructure:"workflow"`
	// ReleaseTag names the prerelease whose assets carry the bundles.
	ReleaseTag string `mapstructure:"release_tag"`
	// Accel is kvm or tcg on the hosted runner.
	Accel string `mapstructure:"accel"`
	// MaxInFlight bounds the runs in flight at once.
	MaxInFlight int `mapstructure:"max_in_flight"`
	// PollInterval, FindTimeout and RunTimeout govern waiting for a run.
	PollInterval time.Duration `mapstructure:"poll_interval"`
	FindTimeout  time.Duration `mapstructure:"find_timeout"`
	RunTimeout   time.Duration `mapstructure:"run_timeout"`
}

// Token returns the API token: from TokenFile when set, else from the
// environment variable TokenEnv. "" means anonymous.
func (g *GitHubConfig) Token() (string, error) {
	if g.TokenFile != "" {
		b, err := os.ReadFile(g.TokenFile)
		if err != nil {
			return "", fmt.Errorf("github token file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	if g.TokenEnv == "" {
		return "", nil
	}
	return strings.TrimSpace(os.Getenv(g.TokenEnv)), nil
}

// Secret returns the webhook secret (file first, then the environment).
func (w *GitHubWebhookConfig) Secret() ([]byte, error) {
	if w.SecretFile != "" {
		b, err := os.ReadFile(w.SecretFile)
		if err != nil {
			return nil, fmt.Errorf("github webhook secret file: %w", err)
		}
		return []byte(strings.TrimRight(string(b), "\r\n")), nil
	}
	if w.SecretEnv != "" {
		if s := os.Getenv(w.SecretEnv); s != "" {
			return []byte(s), nil
		}
	}
	return nil, errors.New("github webhook: no secret (webhook.secret_env or webhook.secret_file); unsigned deliveries are never accepted")
}

// Validate checks the settings that need each other.
func (g *GitHubConfig) Validate() error {
	for _, r := range g.Repos {
		if o, n, ok := strings.Cut(r, "/"); !ok || o == "" || n == "" || strings.Contains(n, "/") {
			return fmt.Errorf("github.repos: %q: want owner/name", r)
		}
	}
	if g.Webhook.Addr != "" && len(g.Repos) == 0 {
		return errors.New("github.webhook.addr is set but github.repos is empty")
	}
	if g.Actions.Enabled && g.Actions.Repo == "" {
		return errors.New("github.actions.enabled needs github.actions.repo")
	}
	return nil
}
