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

// Policy decides whether and to whom a reply may go out: the allow-list
// and rate limits of the configuration (watch.allow, watch.rate_limit) and
// the recipient cap the caller takes from the reply section.
type Policy struct {
	// Allow is the allow-list.
	Allow Allow `mapstructure:"allow"`
	// RateLimit caps replies per window.
	RateLimit RateLimit `mapstructure:"rate_limit"`
	// MaxRecipients caps the envelope recipients of one reply (0: no cap).
	// The author, the allowed lists and the stable list are kept first;
	// the rest are kept in header order up to the cap, and dropped ones
	// are logged.
	MaxRecipients int `mapstructure:"-"`
	// StableList is the stable list address, kept within MaxRecipients.
	StableList string `mapstructure:"-"`
}

// Allow is the allow-list: lists the bot may reply to, and recipient
// domains it may write to. Empty means any; sending requires at least one
// of them to be set (Options.Validate).
type Allow struct {
	// Lists are the mailing lists (List-Id such as
	// "linux-kernel.vger.kernel.org", or a list address) the bot may reply
	// to; empty allows every list.
	Lists []string `mapstructure:"lists"`
	// Domains are the recipient domains the bot may write to; recipients
	// in other domains are dropped from the envelope. Empty allows all.
	Domains []string `mapstructure:"domains"`
}

// RateLimit caps replies per Window (0 = no cap).
type RateLimit struct {
	// PerList caps replies per origin in each Window: the mailbox (IMAP
	// server and mailbox) or replayed archive the series came from, which
	// the sender does not choose (its From and List-Id it does).
	PerList int `mapstructure:"per_list"`
	// PerAuthor caps replies per series author (a From the sender writes:
	// a courtesy limit, not a defence) in each Window.
	PerAuthor int `mapstructure:"per_author"`
	// Total caps all replies in each Window, whatever their origin: the
	// bot's own envelope.
	Total int `mapstructure:"total"`
	// Window is the rate-limit window (default 1h).
	Window time.Duration `mapstructure:"window"`
}

// listAllowed reports whether a reply about a series on list may go out.
func (p *Policy) listAllowed(list string) bool {
	if len(p.Allow.Lists) == 0 {
		return true
	}
	list = normList(list)
	for _, l := range p.Allow.Lists {
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
	if len(p.Allow.Domains) == 0 {
		return rcpt, nil
	}
	for _, r := range rcpt {
		dom := strings.ToLower(r[strings.LastIndexByte(r, '@')+1:])
		ok := false
		for _, d := range p.Allow.Domains {
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
		for _, l := range p.Allow.Lists {
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

// passCounts caches, within one delivery pass, the rate-limit counts
// (replies delivered per origin, per author, in all) since the last reply
// that passed the limits: only such a reply (or one the pass records as
// dry-run) changes a count, so the deferred replies in between reuse them
// (the window slides by the length of a pass, which does not matter; the
// ingest confirming a reply as sent meanwhile was a race before too, as a
// count never was atomic with the delivery). Counting scans the
// key's replies, and a backlog of thousands of queued replies over a limit
// (a huge series with a reply per patch) made every pass quadratic in the
// backlog.
type passCounts map[string]int

// rateLimited returns, when the reply's origin, its author or all replies
// have reached their cap in the current window, when to try again. counts
// carries the counts of the current pass (nil: count every time).
func (p *Policy) rateLimited(ctx context.Context, st *store.Store, r *store.Reply, now time.Time, counts passCounts) (bool, time.Time, string, error) {
	win := p.RateLimit.Window
	if win <= 0 {
		win = time.Hour
	}
	count := func(col, val string) (int, error) {
		key := col + "\x00" + val
		if n, ok := counts[key]; ok {
			return n, nil
		}
		n, err := st.CountDelivered(ctx, col, val, now.Add(-win))
		if err == nil && counts != nil {
			counts[key] = n
		}
		return n, err
	}
	check := func(col, val string, limit int) (bool, error) {
		if limit <= 0 || val == "" {
			return false, nil
		}
		n, err := count(col, val)
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
	if hit, err := check(col, origin, p.RateLimit.PerList); err != nil || hit {
		return hit, now.Add(win / 10), fmt.Sprintf("rate limit: %d replies per %v from %s", p.RateLimit.PerList, win, origin), err
	}
	if p.RateLimit.Total > 0 {
		n, err := count("", "")
		if err != nil || n >= p.RateLimit.Total {
			return err == nil, now.Add(win / 10), fmt.Sprintf("rate limit: %d replies per %v in all", p.RateLimit.Total, win), err
		}
	}
	if hit, err := check("author", r.Author, p.RateLimit.PerAuthor); err != nil || hit {
		return hit, now.Add(win / 10), fmt.Sprintf("rate limit: %d replies per %v to author %s", p.RateLimit.PerAuthor, win, r.Author), err
	}
	// This reply may now be delivered: the counts are stale.
	clear(counts)
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
