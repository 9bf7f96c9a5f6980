package web

import (
	"fmt"
	"net/url"
	"strings"
)

// Options are the `web:` section of the configuration (config.yaml
// documents every key).
type Options struct {
	// BaseURL is where the pages are reachable from outside, e.g.
	// "https://autosel.example.org/" ("" = no links): replies and GitHub
	// reviews link each finding to <BaseURL>finding/<id>.
	BaseURL string `mapstructure:"base_url"`
}

// Validate checks BaseURL: empty, or an absolute http(s) URL without a
// query or fragment.
func (o Options) Validate() error {
	if o.BaseURL == "" {
		return nil
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil {
		return fmt.Errorf("web.base_url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("web.base_url %q: want an http:// or https:// URL without query or fragment", o.BaseURL)
	}
	return nil
}

// FindingURL returns the address of the page of the finding with id
// under BaseURL, or "" when BaseURL is empty.
func (o Options) FindingURL(id string) string {
	if o.BaseURL == "" || id == "" {
		return ""
	}
	return strings.TrimRight(o.BaseURL, "/") + "/" + findingPath(id)
}

// findingPath is the path of a finding's page below the root.
func findingPath(id string) string { return "finding/" + url.PathEscape(id) }

// seriesPath is the path of a series' page below the root.
func seriesPath(key string) string { return "series/" + url.PathEscape(key) }
