package deliver

import (
	"bytes"
	"context"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/store"
)

// Policy decides whether and to whom a reply may go out.
type Policy struct {
	// Lists are the mailing lists (List-Id such as
	// "linux-kernel.vger.kernel.org", or a list address) the bot may reply
	// to; empty allows every list.
	Lists []string
	// Domains are the recipient domains the bot may write to; recipients
	// in other domains are dropped from the envelope. Empty allows all.
	Domains []string
	// PerList caps replies per origin in each Window: the mailbox (IMAP
	// server and mailbox) or replayed archive the series came from, which
	// the sender does not choose (its From and List-Id it does). 0: no cap.
	PerList int
	// PerAuthor caps replies per series author (a From the sender writes:
	// a courtesy limit, not a defence) in each Window. 0: no cap.
	PerAuthor int
	// Total caps all replies in each Window, whatever their origin: the
	// bot's own envelope. 0: no cap.
	Total int
	// Window is the rate-limit window (default 1h).
	Window time.Duration
	// MaxRecipients caps the envelope recipients of one reply (0: no cap).
	// The author, the allowed lists and the stable list are kept first;
	// the rest are kept in header order up to the cap, and dropped ones
	// are logged.
	MaxRecipients int
	// StableList is the stable list address, kept within MaxRecipients.
	StableList string
}

// listAllowed reports whether a reply about a series on list may go out.
func (p *Policy) listAllowed(list string) bool {
	if len(p.Lists) == 0 {
		return true
	}
	list = normList(list)
	for _, l := range p.Lists {
		if normList(l) == list {
			return true
		}
	}
	return false
}

// normList turns "<linux-kernel.vger.kernel.org>", "Name <x.y>" or
// "linux-kernel@vger.kernel.org" into "linux-kernel.vger.kernel.org".
func normList(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSuffix(s, ">")
	return strings.Replace(s, "@", ".", 1)
}

// filterRcpt keeps the recipients whose domain is allowed.
func (p *Policy) filterRcpt(rcpt []string) (kept, dropped []string) {
	if len(p.Domains) == 0 {
		return rcpt, nil
	}
	for _, r := range rcpt {
		dom := strings.ToLower(r[strings.LastIndexByte(r, '@')+1:])
		ok := false
		for _, d := range p.Domains {
			d = strings.ToLower(strings.TrimPrefix(d, "@"))
			if dom == d || strings.HasSuffix(dom, "."+d) {
				ok = true
				break
			}
		}
		if ok {
			kept = append(kept, r)
		} else {
			dropped = append(dropped, r)
		}
	}
	return kept, dropped
}

// capRcpt keeps at most MaxRecipients recipients: first the series
// author, the allowed lists and the stable list, then the others in order.
func (p *Policy) capRcpt(rcpt []string, author string) (kept, dropped []string) {
	if p.MaxRecipients <= 0 || len(rcpt) <= p.MaxRecipients {
		return rcpt, nil
	}
	must := func(r string) bool {
		k := strings.ToLower(r)
		if k == strings.ToLower(author) || (p.StableList != "" && k == strings.ToLower(p.StableList)) {
			return true
		}
		for _, l := range p.Lists {
			if normList(l) == normList(k) {
				return true
			}
		}
		return false
	}
	keep := make([]bool, len(rcpt))
	n := 0
	for i, r := range rcpt {
		if must(r) && n < p.MaxRecipients {
			keep[i] = true
			n++
		}
	}
	for i := range rcpt {
		if !keep[i] && n < p.MaxRecipients {
			keep[i] = true
			n++
		}
	}
	for i, r := range rcpt {
		if keep[i] {
			kept = append(kept, r)
		} else {
			dropped = append(dropped, r)
		}
	}
	return kept, dropped
}

// rateLimited returns, when the reply's origin, its author or all replies
// have reached their cap in the current window, when to try again.
func (p *Policy) rateLimited(ctx context.Context, st *store.Store, r *store.Reply, now time.Time) (bool, time.Time, string, error) {
	win := p.Window
	if win <= 0 {
		win = time.Hour
	}
	check := func(col, val string, limit int) (bool, error) {
		if limit <= 0 || val == "" {
			return false, nil
		}
		n, err := st.CountDelivered(ctx, col, val, now.Add(-win))
		return n >= limit, err
	}
	origin := r.Origin
	if origin == "" {
		// Replies recorded before origins were: the list is all we know.
		origin = r.List
	}
	col := "origin"
	if r.Origin == "" {
		col = "list"
	}
	if hit, err := check(col, origin, p.PerList); err != nil || hit {
		return hit, now.Add(win / 10), fmt.Sprintf("rate limit: %d replies per %v from %s", p.PerList, win, origin), err
	}
	if p.Total > 0 {
		n, err := st.CountDelivered(ctx, "", "", now.Add(-win))
		if err != nil || n >= p.Total {
			return err == nil, now.Add(win / 10), fmt.Sprintf("rate limit: %d replies per %v in all", p.Total, win), err
		}
	}
	if hit, err := check("author", r.Author, p.PerAuthor); err != nil || hit {
		return hit, now.Add(win / 10), fmt.Sprintf("rate limit: %d replies per %v to author %s", p.PerAuthor, win, r.Author), err
	}
	return false, time.Time{}, "", nil
}

// Recipients returns the bare addresses of a message's To and Cc headers.
func Recipients(raw []byte) ([]string, error) {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("reply headers: %w", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, h := range []string{"To", "Cc"} {
		if m.Header.Get(h) == "" {
			continue
		}
		list, err := m.Header.AddressList(h)
		if err != nil {
			return nil, fmt.Errorf("reply %s header: %w", h, err)
		}
		for _, a := range list {
			k := strings.ToLower(a.Address)
			if !seen[k] {
				seen[k] = true
				out = append(out, a.Address)
			}
		}
	}
	return out, nil
}
