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
	// PerList and PerAuthor cap replies per list and per series author in
	// each Window (0: no limit).
	PerList, PerAuthor int
	// Window is the rate-limit window (default 1h).
	Window time.Duration
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

// rateLimited returns, when the reply's list or author has reached its cap
// in the current window, when to try again.
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
	if hit, err := check("list", r.List, p.PerList); err != nil || hit {
		return hit, now.Add(win / 10), fmt.Sprintf("rate limit: %d replies per %v to list %s", p.PerList, win, r.List), err
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
