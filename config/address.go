package config

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/reply"
)

// checkAddresses checks that the bot's sender addresses parse (reply.from,
// and watch.from when set); a bad one is an error naming the key and where
// its value came from, never silently the default.
func checkAddresses(c *Config, src *Sources) error {
	if err := c.Reply.Validate(); err != nil {
		return fmt.Errorf("bad configuration value: %s: %w", src.Of("reply.from"), err)
	}
	if c.Watch.From != "" {
		if _, err := reply.ParseFrom(c.Watch.From); err != nil {
			return fmt.Errorf("bad configuration value: %s: watch.from: %w", src.Of("watch.from"), err)
		}
	}
	return nil
}
