package lava

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/autosel-bot/autosel-bot/runner"
)

// ResolveToken returns the API token: from TokenFile when set, else from
// the environment variable TokenEnv ("" when neither is set).
func (o Options) ResolveToken() (string, error) {
	if o.TokenFile != "" {
		b, err := os.ReadFile(o.TokenFile)
		if err != nil {
			return "", fmt.Errorf("lava token file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	if o.TokenEnv == "" {
		return "", nil
	}
	return strings.TrimSpace(os.Getenv(o.TokenEnv)), nil
}

// Validate checks the section for the lava backend.
func (o Options) Validate() error {
	if o.URL == "" {
		return errors.New("runner.backend lava needs runner.lava.url")
	}
	if o.ShareDir != "" && o.ShareURL == "" {
		return errors.New("runner.lava.share_dir needs runner.lava.share_url")
	}
	if o.Events != "" && !strings.HasPrefix(o.Events, "tcp://") {
		return fmt.Errorf("runner.lava.events %q: want tcp://host:port", o.Events)
	}
	switch o.Accel {
	case "", "tcg", "kvm":
	default:
		return fmt.Errorf("runner.lava.accel %q: want tcg or kvm", o.Accel)
	}
	return nil
}

// NewWithLocal returns the backend of the configured section opts, with
// the local backend of ro (the runner's options, defaults filled in)
// building and evaluating: it validates opts, reads the token, and keeps
// its files in <ro.WorkDir>/lava; log receives progress.
func NewWithLocal(opts Options, ro runner.Options, log *slog.Logger) (*Backend, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	tok, err := opts.ResolveToken()
	if err != nil {
		return nil, err
	}
	ro = ro.WithDefaults()
	opts.Token, opts.WorkDir, opts.Log = tok, filepath.Join(ro.WorkDir, "lava"), log
	return New(runner.NewLocal(ro), opts)
}
