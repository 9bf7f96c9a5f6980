// Package autoselbot embeds the documented default configuration
// (config.yaml at the repository root) so the binary runs with no config
// file at all.
package autoselbot

import _ "embed"

// DefaultConfig is config.yaml as shipped: the built-in defaults.
//
//go:embed config.yaml
var DefaultConfig []byte
