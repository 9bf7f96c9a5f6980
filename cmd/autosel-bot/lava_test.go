package main

import (
	"log/slog"
	"testing"

	"github.com/autosel-bot/autosel-bot/config"
)

// TestVMStageLava: runner.backend lava gives the pipeline's VM stage the
// lava backend, whose metrics go to the daemon's /metrics; a missing URL
// is a configuration error.
func TestVMStageLava(t *testing.T) {
	v, err := config.New()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(v, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Runner.Enabled, cfg.Runner.Tree, cfg.Runner.Backend = true, t.TempDir(), "lava"
	cfg.Runner.WorkDir = t.TempDir()
	a := &app{v: v, cfg: cfg}
	if _, err := vmStage(a, slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("lava without runner.lava.url accepted")
	}
	cfg.Runner.Lava.URL = "http://127.0.0.1:9/"
	st, err := vmStage(a, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if st.Name() != "vm" || len(a.collectors) != 1 {
		t.Fatalf("stage %q, %d collectors, want vm and the lava backend's", st.Name(), len(a.collectors))
	}
	cfg.Runner.Backend = "cloud"
	if _, err := vmStage(a, slog.New(slog.DiscardHandler)); err == nil {
		t.Error("runner.backend cloud accepted")
	}
	// The local backend adds none.
	cfg.Runner.Backend = "local"
	a.collectors = nil
	if _, err := vmStage(a, slog.New(slog.DiscardHandler)); err != nil || len(a.collectors) != 0 {
		t.Fatalf("local: %v, %d collectors", err, len(a.collectors))
	}
}
