package reply

import (
	"strings"

	amail "github.com/autosel-bot/autosel-bot/mail"
)

// PersonTrailers are the trailer keys (lower case) that name people who
// worked on a patch: with Options.TrailerRecipients their addresses are
// To: recipients of its reply, as those of "Cc:" trailers are Cc:.
var PersonTrailers = map[string]bool{
	"signed-off-by": true, "co-developed-by": true, "reviewed-by": true, "acked-by": true,
	"tested-by": true, "reported-by": true, "suggested-by": true,
}

// addRecipients addresses reply m to msg the way a list reader's reply-all
// does: To the sender of msg, then the authors of the patches pms (an
// in-body "From:", e.g. of an AUTOSEL posting, is the author, not the
// sender); Cc everyone msg was addressed to (its To and Cc, the stable
// list included when the posting went to it). The people of the patches'
// trailers are added only with opts.TrailerRecipients, and the stable list
// when stable trees were tested (stable). The bot itself and undeliverable
// addresses are never recipients.
func addRecipients(m *Mail, msg *amail.Message, pms []*amail.Message, stable bool, opts Options) {
	ab := newAddrBook(m.From.Address, opts.stableList())
	ab.add(&m.To, msg.From.Name, msg.From.Addr)
	for _, pm := range pms {
		ab.add(&m.To, pm.Author.Name, pm.Author.Addr)
	}
	if opts.TrailerRecipients {
		for _, pm := range pms {
			for _, t := range pm.Trailers {
				if PersonTrailers[strings.ToLower(t.Key)] {
					ab.addRaw(&m.To, t.Value)
				}
			}
		}
	}
	// Reply-all keeps the stable list where the posting itself went to it.
	ab.allowStable = true
	for _, a := range msg.To {
		ab.add(&m.Cc, a.Name, a.Addr)
	}
	for _, a := range msg.Cc {
		ab.add(&m.Cc, a.Name, a.Addr)
	}
	ab.allowStable = false
	if opts.TrailerRecipients {
		for _, pm := range pms {
			for _, t := range pm.Trailers {
				if strings.EqualFold(t.Key, "Cc") {
					ab.addRaw(&m.Cc, t.Value)
				}
			}
		}
	}
	if stable {
		ab.allowStable = true
		ab.add(&m.Cc, "", opts.stableList())
	}
}

// ensureTo makes the first Cc recipient the To of a reply that has none
// (its sender had no deliverable address): a mail goes To someone.
func ensureTo(m *Mail) {
	if len(m.To) == 0 && len(m.Cc) > 0 {
		m.To, m.Cc = m.Cc[:1:1], m.Cc[1:]
	}
}
