package github

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/secret"
)

// WebhookOptions configure the pull_request event receiver (the
// `github.webhook:` section).
type WebhookOptions struct {
	// Addr is the listen address; empty: no receiver (polling only).
	Addr string `mapstructure:"addr"`
	// Path is the URL path deliveries are posted to.
	Path string `mapstructure:"path"`
	// SecretEnv and SecretFile hold the webhook secret (required).
	SecretEnv  string `mapstructure:"secret_env"`
	SecretFile string `mapstructure:"secret_file"`
}

// DefaultOptions are the documented defaults: config.yaml's github
// section without its actions sub-section (a test holds the two equal).
func DefaultOptions() Options {
	return Options{
		PollInterval: 2 * time.Minute,
		Workers:      1,
		CheckName:    "autosel-bot",
		MaxCommits:   50,
		MaxAttempts:  5,
		Client: ClientOptions{
			TokenEnv:    "GITHUB_TOKEN",
			Retries:     4,
			Backoff:     time.Second,
			MaxBackoff:  time.Minute,
			MaxRateWait: 15 * time.Minute,
			WriteGap:    time.Second,
		},
		Webhook: WebhookOptions{Path: "/github/webhook", SecretEnv: "GITHUB_WEBHOOK_SECRET"},
	}
}

// ResolveToken returns the API token: from TokenFile when set, else from
// the environment variable TokenEnv. "" means anonymous.
func (o ClientOptions) ResolveToken() (string, error) {
	return secret.Token(o.TokenEnv, o.TokenFile, "github token")
}

// Secret returns the webhook secret (file first, then the environment).
func (w WebhookOptions) Secret() ([]byte, error) {
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
func (o Options) Validate() error {
	for _, r := range o.Repos {
		if own, name, ok := strings.Cut(r, "/"); !ok || own == "" || name == "" || strings.Contains(name, "/") {
			return fmt.Errorf("github.repos: %q: want owner/name", r)
		}
	}
	if o.Webhook.Addr != "" && len(o.Repos) == 0 {
		return errors.New("github.webhook.addr is set but github.repos is empty")
	}
	return nil
}
