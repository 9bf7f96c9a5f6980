package index

import "fmt"

// Settings are the `index:` section of the configuration (mapstructure
// tags; config.yaml documents every key and its default): where indexes
// are cached and whether indexing shows a progress bar. The caller turns
// them into Options (CacheDir) and a Progress callback.
type Settings struct {
	// CacheDir holds the persisted index of each tree (about 160 MB for
	// Linux 6.1); "" means $XDG_CACHE_HOME/autosel-bot (~/.cache/...),
	// "-" disables the cache (every run scans the whole tree).
	CacheDir string `mapstructure:"cache_dir"`
	// Progress is auto (a progress bar on a terminal, for the text
	// format), always or never; "" means auto.
	Progress string `mapstructure:"progress"`
}

// Validate checks Progress.
func (s Settings) Validate() error {
	if err := ValidateProgress(s.Progress); err != nil {
		return fmt.Errorf("index.progress %w", err)
	}
	return nil
}

// ValidateProgress checks a progress setting; the error quotes it and
// names the valid ones.
func ValidateProgress(progress string) error {
	switch progress {
	case "", "auto", "always", "never":
		return nil
	}
	return fmt.Errorf("%q: want auto, always or never", progress)
}
