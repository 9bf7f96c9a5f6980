package config

// StableConfig configures the stable section (see config.yaml).
type StableConfig struct {
}
