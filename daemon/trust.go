package daemon

import (
	"fmt"
	"path"
	"strings"
	"time"
)

// CommandOptions are the `watch.commands` settings: whether the bot reads
// "#autosel" commands in replies, and whom it trusts with them on which
// list. config.yaml documents every key and its default.
type CommandOptions struct {
	// Enabled reads commands in replies (watch and replay).
	Enabled bool `mapstructure:"enabled"`
	// Trust says who may give commands on which lists; a sender trusted
	// by any entry whose list matches may.
	Trust []TrustOptions `mapstructure:"trust"`
	// RefusalInterval is how long after refusing a sender's commands
	// the bot stays silent to that sender's further commands (default
	// 24h: one polite refusal a day).
	RefusalInterval time.Duration `mapstructure:"refusal_interval"`
}

// TrustOptions trust senders on one list (or every list matching a
// pattern).
type TrustOptions struct {
	// List is a List-Id or list address ("linux-mm.kvack.org",
	// "linux-mm@kvack.org"), or a pattern ('*' any run of characters;
	// "*" every list).
	List string `mapstructure:"list"`
	// Maintainers are addresses trusted on the list.
	Maintainers []string `mapstructure:"maintainers"`
	// Patterns are sender patterns trusted on the list ("*@kernel.org").
	Patterns []string `mapstructure:"patterns"`
	// Author trusts the author of the series a command is about.
	Author bool `mapstructure:"author"`
}

// Validate checks the patterns of the trust entries.
func (o *CommandOptions) Validate() error {
	for i, t := range o.Trust {
		if strings.TrimSpace(t.List) == "" {
			return fmt.Errorf("commands.trust[%d].list is empty (\"*\" for every list)", i)
		}
		for _, p := range append([]string{t.List}, t.Patterns...) {
			if _, err := path.Match(strings.ToLower(p), ""); err != nil {
				return fmt.Errorf("commands.trust[%d]: pattern %q: %w", i, p, err)
			}
		}
	}
	return nil
}

// trusted reports whether sender may give commands on list about a
// series by author.
func (o *CommandOptions) trusted(list, sender, author string) bool {
	sender, author = strings.ToLower(sender), strings.ToLower(author)
	for _, t := range o.Trust {
		if !listMatches(t.List, list) {
			continue
		}
		if t.Author && author != "" && sender == author {
			return true
		}
		for _, m := range t.Maintainers {
			if strings.EqualFold(strings.TrimSpace(bareAddr(m)), sender) {
				return true
			}
		}
		for _, p := range t.Patterns {
			if ok, _ := path.Match(strings.ToLower(p), sender); ok {
				return true
			}
		}
	}
	return false
}

// listMatches matches a trust entry's list (or pattern) with a mail's
// list, in the comparable form of listKey ("x@y.org" and "<x.y.org>" are
// the same list).
func listMatches(pattern, list string) bool {
	if strings.TrimSpace(pattern) == "*" {
		return true
	}
	ok, _ := path.Match(listKey(pattern), listKey(list))
	return ok
}

// listKey is a list address or List-Id in one form: "x.y.org".
func listKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		s = s[i+1:]
	}
	return strings.Replace(strings.TrimSuffix(s, ">"), "@", ".", 1)
}
