package config

// WatchConfig configures the watch section (see config.yaml).
type WatchConfig struct {
}
