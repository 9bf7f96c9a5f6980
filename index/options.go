package index

import "fmt"

// Settings are the `index:` section of the configuration (mapstructure
// tags; config.yaml documents every key and its default): where indexes
// are cached, whether indexing shows a progress bar and how much of the
// tree a long-running process keeps decoded or cached. The caller turns
// them into Options (CacheDir, PageCache), a Progress callback and the
// pipeline's IndexWarm.
type Settings struct {
	// CacheDir holds the persisted index of each tree (about 350 MB for
	// Linux 6.1); "" means $XDG_CACHE_HOME/autosel-bot (~/.cache/...),
	// "-" disables the cache (every run scans the whole tree).
	CacheDir string `mapstructure:"cache_dir"`
	// Progress is auto (a progress bar on a terminal, for the text
	// format), always or never; "" means auto.
	Progress string `mapstructure:"progress"`
	// Warm bounds the functions of the tree kept decoded between series
	// (pipeline.AnalysisOptions.IndexWarm); 0 keeps everything.
	Warm int `mapstructure:"warm"`
	// Summaries lets the rules summarise the whole tree once and store
	// it beside the index (rules.Rule.Prepare) before the first patch.
	Summaries bool `mapstructure:"summaries"`
	// PageCacheMB bounds, in MB, the pages kept of each file the index
	// reads (the store, each side file) and the records decoded from a
	// side file (Options.PageCache); 0 keeps everything read.
	PageCacheMB int `mapstructure:"page_cache_mb"`
}

// DefaultSettings are the documented defaults: config.yaml's index
// section (a test holds the two equal).
func DefaultSettings() Settings {
	return Settings{Progress: "auto", Warm: 200000, Summaries: true, PageCacheMB: 64}
}

// Validate checks Progress and PageCacheMB.
func (s Settings) Validate() error {
	if err := ValidateProgress(s.Progress); err != nil {
		return fmt.Errorf("index.progress %w", err)
	}
	if s.PageCacheMB < 0 {
		return fmt.Errorf("index.page_cache_mb %d: want 0 (no bound) or more MB", s.PageCacheMB)
	}
	return nil
}

// PageCache returns Options.PageCache for PageCacheMB: its bytes, or -1
// (every page kept) for 0.
func (s Settings) PageCache() int64 {
	if s.PageCacheMB <= 0 {
		return -1
	}
	return int64(s.PageCacheMB) << 20
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
