// Package configtest decodes sections of the shipped configuration
// (config.yaml, embedded in package autoselbot) for tests of the packages
// that own them, which cannot import package config (it imports them).
package configtest

import (
	"bytes"
	"fmt"

	"github.com/spf13/viper"

	autoselbot "github.com/autosel-bot/autosel-bot"
)

// Section decodes the key (a section, "runner" or "runner.lava") of the
// built-in defaults into out, as config.Load decodes it.
func Section(key string, out any) error {
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(autoselbot.DefaultConfig)); err != nil {
		return fmt.Errorf("embedded config.yaml: %w", err)
	}
	if !v.IsSet(key) {
		return fmt.Errorf("embedded config.yaml: no key %q", key)
	}
	if err := v.UnmarshalKey(key, out); err != nil {
		return fmt.Errorf("embedded config.yaml: %s: %w", key, err)
	}
	return nil
}
