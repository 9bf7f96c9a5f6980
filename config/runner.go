package config

// RunnerConfig configures the runner section (see config.yaml).
type RunnerConfig struct {
}
