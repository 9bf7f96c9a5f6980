package config

import "github.com/autosel-bot/autosel-bot/stable"

// StableConfig configures the stable section (see config.yaml): the trees,
// upstream, builds. It is stable.Options, so the section is passed as is
// to stable.NewStage.
type StableConfig = stable.Options
