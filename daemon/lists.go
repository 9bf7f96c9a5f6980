package daemon

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/reply"
	"github.com/autosel-bot/autosel-bot/series"
)

// ListOrigin names the mailing list whose mail a mailbox holds: the list
// a message belongs to is where the bot read it (an IMAP folder, a
// public-inbox newsgroup, a replayed archive), never its List-Id or To
// headers, which the sender writes.
type ListOrigin struct {
	// Origin is "source/mailbox" of the mail: the IMAP server's name and
	// a mailbox (a public-inbox served over IMAP is one such mailbox per
	// epoch, "lore/org.kernel.vger.linux-kernel.*"), or for a replayed
	// archive "replay:<path>/". '*' matches any run of characters.
	Origin string `mapstructure:"origin"`
	// List is the list's address or List-Id ("linux-kernel@vger.kernel.org").
	List string `mapstructure:"list"`
}

// originMatches matches an origin pattern ('*' any run, case-sensitive:
// mailbox names are) with an origin.
func originMatches(pattern, origin string) bool {
	re := "^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, ".*") + "$"
	ok, err := regexp.MatchString(re, origin)
	return err == nil && ok
}

// listOfOrigin returns the list configured for the mail read from origin
// ("source/mailbox"), in lower case; "" when no entry matches (the mail is
// on no known list, and a list allow-list holds its replies).
func (d *Daemon) listOfOrigin(origin string) string {
	for _, l := range d.opts.Lists {
		if originMatches(l.Origin, origin) {
			return strings.ToLower(strings.TrimSpace(l.List))
		}
	}
	return ""
}

// threadAddrs are the addresses a reply about s may go to, lower-cased:
// those of the series' own mails (From, To, Cc; review replies that propose
// a diff included) and its patches' authors
// (an in-body From:, as reply addresses them), with trailers also the
// addresses of the patches' trailers that reply adds
// (reply.Options.TrailerRecipients), plus extra (the list the series was
// read from, the stable list).
func threadAddrs(s *series.Series, trailers bool, extra ...string) map[string]bool {
	set := map[string]bool{}
	add := func(a string) {
		if a = strings.ToLower(strings.TrimSpace(bareAddr(a))); a != "" {
			set[a] = true
		}
	}
	for _, e := range extra {
		add(e)
	}
	msgs := []*mail.Message{s.Cover}
	for _, p := range s.Patches {
		msgs = append(msgs, p.Msg)
	}
	// A diff proposed in a review is answered under that review, to its
	// reviewer and the review's own To and Cc.
	for _, p := range s.Review {
		msgs = append(msgs, p.Msg)
	}
	for _, m := range msgs {
		if m == nil {
			continue
		}
		add(m.From.Addr)
		add(m.Author.Addr)
		for _, a := range m.To {
			add(a.Addr)
		}
		for _, a := range m.Cc {
			add(a.Addr)
		}
		if !trailers {
			continue
		}
		for _, t := range m.Trailers {
			if k := strings.ToLower(t.Key); reply.PersonTrailers[k] || k == "cc" {
				v, _, _ := strings.Cut(t.Value, " #")
				add(v)
			}
		}
	}
	return set
}
