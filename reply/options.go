// Package reply composes the bot's replies to a patch series: the body in
// the stable bot's format (byte for byte where it has one), followed by this
// bot's own sections (backport notes, lock and wakeup findings with call
// chains, VM results), and the RFC 5322 headers that thread the reply under
// the original mail. Render writes the bodies (check --format email);
// Compose returns whole mails for the watch daemon's outbox.
package reply

import (
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// Options configure replies. It is the `reply:` section of config.yaml
// (config.Config.Reply; config.yaml documents every key). Start from
// DefaultOptions: the zero value has no greeting, signature or sender.
type Options struct {
	// From is the bot's sender, "Name <addr>"; never a recipient.
	From string `mapstructure:"from" yaml:"from"`
	// Greeting is the first line ("Hi" as the stable bot; "" for none).
	Greeting string `mapstructure:"greeting" yaml:"greeting"`
	// Signature follows the "-- " separator, e.g. "Thanks\nSasha".
	Signature string `mapstructure:"signature" yaml:"signature"`
	// PerPatch adds a reply to each patch of a multi-patch series that has
	// findings (the series reply holds the summary).
	PerPatch bool `mapstructure:"per_patch" yaml:"per_patch"`
	// SkipEmpty sends no mail for a series with nothing to say (no stable
	// results, no findings, no VM results).
	SkipEmpty bool `mapstructure:"skip_empty" yaml:"skip_empty"`
	// Notes includes note-severity findings (risks are always included).
	Notes bool `mapstructure:"notes" yaml:"notes"`
	// LoreURL prefixes the Message-ID in the thread link.
	LoreURL string `mapstructure:"lore_url" yaml:"lore_url"`
	// MessageIDDomain is the right-hand side of the bot's Message-IDs
	// ("" = the domain of From).
	MessageIDDomain string `mapstructure:"message_id_domain" yaml:"message_id_domain"`
	// StableList is the stable list address, Cc'd when stable trees were
	// tested.
	StableList string `mapstructure:"stable_list" yaml:"stable_list"`
	// TrailerRecipients adds the people of the patches' trailers
	// (Signed-off-by, Reviewed-by, ...: PersonTrailers) to To and the
	// addresses of their "Cc:" trailers to Cc. Off, a reply goes to the
	// patch mail's sender, its To and Cc (reply-all) and the patch author.
	TrailerRecipients bool `mapstructure:"trailer_recipients" yaml:"trailer_recipients"`
	// MaxRecipients caps the To and Cc addresses of one reply (0: no cap).
	// The author answered, the KeepLists and the stable list are kept
	// first, then the others in order; Mail.Dropped lists the rest.
	MaxRecipients int `mapstructure:"max_recipients" yaml:"max_recipients"`
	// MaxPatchReplies caps the per-patch replies of one series (0: no
	// cap); findings of the patches beyond it go into the series reply.
	MaxPatchReplies int `mapstructure:"max_patch_replies" yaml:"max_patch_replies"`
	// KeepLists are list addresses (or List-Ids) always kept within
	// MaxRecipients: the allow-listed lists (watch.allow.lists).
	KeepLists []string `mapstructure:"-" yaml:"-"`
	// Commands says the bot reads "#autosel" commands in replies (watch
	// with watch.commands.enabled): replies with findings say how to
	// ignore one.
	Commands bool `mapstructure:"-" yaml:"-"`
	// FindingURL returns the address of a finding's web page (package
	// web, web.base_url); nil or "": no link. Each finding of a reply
	// then has a "Web:" line under its id.
	FindingURL func(id string) string `mapstructure:"-" yaml:"-"`
	// Version goes into the X-Autosel-Bot header.
	Version string `mapstructure:"-" yaml:"-"`
	// Now stamps the Date header (default time.Now).
	Now func() time.Time `mapstructure:"-" yaml:"-"`
}

// DefaultOptions are the documented defaults (config.yaml's reply section).
func DefaultOptions() Options {
	return Options{
		From:       "autosel-bot <autosel-bot@localhost>",
		Greeting:   "Hi",
		Signature:  "Thanks,\nautosel-bot",
		PerPatch:   true,
		SkipEmpty:  true,
		Notes:      true,
		LoreURL:    "https://lore.kernel.org/r/",
		StableList: "stable@vger.kernel.org",

		MaxRecipients:   20,
		MaxPatchReplies: 10,
	}
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) stableList() string {
	if o.StableList == "" {
		return "stable@vger.kernel.org"
	}
	return o.StableList
}

// Validate checks the values that must parse: From is an RFC 5322 address
// ("Name <addr@host>" or a bare address). The error names the key.
func (o Options) Validate() error {
	if _, err := ParseFrom(o.From); err != nil {
		return fmt.Errorf("reply.from: %w", err)
	}
	return nil
}

// ParseFrom parses the bot's sender address (reply.from, watch.from): one
// RFC 5322 address with a domain.
func ParseFrom(s string) (*mail.Address, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not an address (\"Name <bot@example.org>\"): %w", s, err)
	}
	if !strings.Contains(a.Address, "@") {
		return nil, fmt.Errorf("%q has no domain (\"Name <bot@example.org>\")", s)
	}
	return a, nil
}

// fromAddr returns the bot's parsed sender (Validate has checked it; the
// zero Options get the built-in sender).
func (o Options) fromAddr() *mail.Address {
	if a, err := mail.ParseAddress(o.From); err == nil {
		return a
	}
	return &mail.Address{Name: "autosel-bot", Address: "autosel-bot@localhost"}
}

func (o Options) idDomain() string {
	if o.MessageIDDomain != "" {
		return o.MessageIDDomain
	}
	a := o.fromAddr().Address
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		return a[i+1:]
	}
	return "localhost"
}
