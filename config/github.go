package config

import (
	"github.com/autosel-bot/autosel-bot/github"
	"github.com/autosel-bot/autosel-bot/runner/actions"
)

// GitHubConfig is the github section (see config.yaml): github.Options
// (pull requests reviewed by `watch`, the REST client, the webhook) and
// the github-actions VM backend's sub-section.
type GitHubConfig struct {
	github.Options `mapstructure:",squash"`
	// Actions is the github-actions runner backend.
	Actions actions.Options `mapstructure:"actions"`
}

// Validate checks the settings that need each other.
func (g GitHubConfig) Validate() error {
	if err := g.Options.Validate(); err != nil {
		return err
	}
	return g.Actions.Validate()
}
