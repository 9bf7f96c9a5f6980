package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// LavaConfig configures the lava runner backend (runner.backend: lava):
// kernels built here, booted by a LAVA lab.
type LavaConfig struct {
	// URL is the LAVA server (its REST API v0.2 is under api/v0.2/).
	URL string `mapstructure:"url"`
	// TokenEnv names the environment variable holding the API token;
	// TokenFile is a file holding it (it wins).
	TokenEnv  string `mapstructure:"token_env"`
	TokenFile string `mapstructure:"token_file"`
	// DeviceType is the device type jobs ask for; Tags are device tags.
	DeviceType string   `mapstructure:"device_type"`
	Tags       []string `mapstructure:"tags"`
	// Priority of the jobs: low, medium or high.
	Priority string `mapstructure:"priority"`
	// Accel is what the lab's devices use (their dictionaries decide):
	// tcg or kvm. It scales the timeouts and picks the CPU model.
	Accel string `mapstructure:"accel"`
	// MaxInFlight bounds the jobs submitted and not finished.
	MaxInFlight int `mapstructure:"max_in_flight"`
	// PollMin and PollMax bound the polling interval (backoff).
	PollMin time.Duration `mapstructure:"poll_min"`
	PollMax time.Duration `mapstructure:"poll_max"`
	// Events is the server's event stream (tcp://host:5500, lava-publisher):
	// when set, a job is polled at once on its events.
	Events string `mapstructure:"events"`
	// DeployTimeout bounds the download of a job's artifacts.
	DeployTimeout time.Duration `mapstructure:"deploy_timeout"`
	// QueueTimeout ends a job that no online device can take;
	// OfflineGrace one whose worker went offline (both: infrastructure).
	QueueTimeout time.Duration `mapstructure:"queue_timeout"`
	OfflineGrace time.Duration `mapstructure:"offline_grace"`
	// ServeAddr is the address of the bot's artifact server; ServeURL the
	// URL prefix dispatchers reach it at (empty: http://<serve_addr>/).
	ServeAddr string `mapstructure:"serve_addr"`
	ServeURL  string `mapstructure:"serve_url"`
	// ShareDir and ShareURL publish artifacts through another web server
	// instead: copied into share_dir, fetched from share_url.
	ShareDir string `mapstructure:"share_dir"`
	ShareURL string `mapstructure:"share_url"`
}

// Token returns the API token (file first, then the environment).
func (l *LavaConfig) Token() (string, error) {
	if l.TokenFile != "" {
		b, err := os.ReadFile(l.TokenFile)
		if err != nil {
			return "", fmt.Errorf("lava token file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	if l.TokenEnv == "" {
		return "", nil
	}
	return strings.TrimSpace(os.Getenv(l.TokenEnv)), nil
}

// Validate checks the section for the lava backend.
func (l *LavaConfig) Validate() error {
	if l.URL == "" {
		return errors.New("runner.backend lava needs runner.lava.url")
	}
	if l.ShareDir != "" && l.ShareURL == "" {
		return errors.New("runner.lava.share_dir needs runner.lava.share_url")
	}
	if l.Events != "" && !strings.HasPrefix(l.Events, "tcp://") {
		return fmt.Errorf("runner.lava.events %q: want tcp://host:port", l.Events)
	}
	switch l.Accel {
	case "", "tcg", "kvm":
	default:
		return fmt.Errorf("runner.lava.accel %q: want tcg or kvm", l.Accel)
	}
	return nil
}
