package reply

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"regexp"
	"strings"

	amail "github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// MessageID returns the deterministic Message-ID (without angle brackets)
// of the bot's reply about patch n (0 = the series reply) of version v of
// series id. A reply composed again after a crash or restart gets the same
// id, so the outbox, the state store and the list archives recognise it as
// the same mail instead of a new one.
func MessageID(seriesID string, version, patch int, domain string) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("autosel-bot reply\x00%s\x00v%d\x00%d", strings.Trim(seriesID, "<>"), version, patch)))
	return fmt.Sprintf("autosel-bot.%s.v%d.%d@%s", hex.EncodeToString(h[:10]), version, patch, domain)
}

// ReviewMessageID returns the deterministic Message-ID (without angle
// brackets) of the bot's reply under review message reviewID of version v
// of series id: the reply about the diff that review proposes.
func ReviewMessageID(seriesID string, version int, reviewID, domain string) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("autosel-bot review reply\x00%s\x00v%d\x00%s", strings.Trim(seriesID, "<>"), version, strings.Trim(reviewID, "<>"))))
	return fmt.Sprintf("autosel-bot.%s.v%d.review@%s", hex.EncodeToString(h[:10]), version, domain)
}

// Compose returns the replies for a series: one reply to the cover letter
// (or, without one, to the first patch), with opts.PerPatch one to each
// other patch that has findings, and one under each review message whose
// proposed diff has findings (its reviewer wrote that diff, and the thread
// reads the answer there). Per-patch and review replies share the
// opts.MaxPatchReplies cap; what is beyond it is folded into the series
// reply. With r.Changes (the previous version was analysed) the series
// reply says what changed, and findings unchanged since then are named
// there, not repeated in full. With opts.SkipEmpty, a series with nothing
// to say gets no reply at all (nil, nil). Findings without an id get one
// (report.AssignIDs).
func Compose(r *report.Report, s *series.Series, opts Options) ([]*Mail, error) {
	if r == nil || s == nil {
		return nil, errors.New("reply: nil report or series")
	}
	report.AssignIDs(r)
	r = withoutUnchanged(r)
	target := s.Cover
	if target == nil && len(s.Patches) > 0 && s.Patches[0] != nil {
		target = s.Patches[0].Msg
	}
	if target == nil {
		return nil, fmt.Errorf("reply: series %s has no message to reply to", s.ID)
	}
	ps := patchReports(r)
	if opts.SkipEmpty && !anything(r, ps, opts) {
		return nil, nil
	}
	var submitted []*report.PatchReport
	for _, p := range ps {
		if !p.InReview {
			submitted = append(submitted, p)
		}
	}
	single := s.Cover == nil && len(submitted) <= 1
	id0 := MessageID(s.ID, s.Version, 0, opts.idDomain())
	msgs := newSeriesMsgs(s)
	own := ownReplies(ps, s, target, msgs, single, opts)
	var mails []*Mail
	var rest []*report.PatchReport
	for _, p := range ps {
		if !p.InReview || !own[p] {
			rest = append(rest, p)
		}
	}
	switch {
	case opts.SkipEmpty && !anything(r, rest, opts):
		// Only review diffs have something to say: their own replies.
	case single:
		var p *report.PatchReport
		if len(submitted) == 1 {
			p = submitted[0]
		} else {
			p = &report.PatchReport{Number: 1, Subject: target.Subject.Raw, MessageID: target.MessageID}
		}
		body := patchBody(r, p, true, target.MessageID, id0, opts)
		// Diffs proposed in review replies that get no reply of their
		// own are analysed in the same reply.
		if extra := reviewSections(r, ps, own, opts); extra != "" {
			body = insertBeforeTail(body, extra, opts)
		}
		mails = append(mails, newMail(target, s, msgs, []*report.PatchReport{p}, body, id0, 0, opts))
	default:
		full := map[*report.PatchReport]bool{}
		for _, p := range ps {
			if !own[p] {
				full[p] = true
			}
		}
		body := seriesBody(r, ps, full, target.MessageID, id0, opts)
		mails = append(mails, newMail(target, s, msgs, submitted, body, id0, 0, opts))
	}
	for _, p := range ps {
		if !own[p] {
			continue
		}
		msg := msgs.find(p)
		id := MessageID(s.ID, s.Version, p.Number, opts.idDomain())
		if p.InReview {
			id = ReviewMessageID(s.ID, s.Version, msg.MessageID, opts.idDomain())
		}
		pb := patchBody(r, p, false, msg.MessageID, id, opts)
		mails = append(mails, newMail(msg, s, msgs, []*report.PatchReport{p}, pb, id, p.Number, opts))
	}
	return mails, nil
}

// ownReplies picks the patch reports answered in a reply of their own, in
// the order of ps, at most opts.MaxPatchReplies of them: with
// opts.PerPatch the submitted patches with findings (not the one the
// series reply answers), and every diff proposed in a review reply that
// has findings, under that review message.
func ownReplies(ps []*report.PatchReport, s *series.Series, target *amail.Message, msgs *seriesMsgs, single bool, opts Options) map[*report.PatchReport]bool {
	own := map[*report.PatchReport]bool{}
	n := 0
	for _, p := range ps {
		if len(selectFindings(p.Findings, opts)) == 0 || msgs.find(p) == nil {
			continue
		}
		if opts.MaxPatchReplies > 0 && n >= opts.MaxPatchReplies {
			break
		}
		switch {
		case p.InReview:
		case single, !opts.PerPatch:
			continue
		case s.Cover == nil && p.MessageID == target.MessageID:
			// The reply to the first patch carries its findings.
			continue
		}
		own[p] = true
		n++
	}
	return own
}

// reviewSections renders the findings on diffs proposed in review replies
// that get no reply of their own.
func reviewSections(r *report.Report, ps []*report.PatchReport, own map[*report.PatchReport]bool, opts Options) string {
	var b strings.Builder
	var review []*report.PatchReport
	for _, p := range ps {
		if p.InReview && !own[p] && len(selectFindings(p.Findings, opts)) > 0 {
			review = append(review, p)
		}
	}
	if len(review) == 0 {
		return ""
	}
	writeOwn(&b, r, review, false, true, opts)
	return b.String()
}

// insertBeforeTail puts extra sections before the tail: how to
// reproduce, the trailers, the link and the signature.
func insertBeforeTail(body, extra string, opts Options) string {
	cut := len(body)
	if i := strings.LastIndex(body, "\n"+reproduceTitle+"\n"); i >= 0 {
		cut = i
	} else if i := strings.LastIndex(body, "\nIf you fix the issue"); i >= 0 {
		cut = i
	} else if i := strings.LastIndex(body, "\nLink: "); i >= 0 {
		cut = i
	} else if i := strings.LastIndex(body, "\n-- \n"); i >= 0 {
		cut = i
	}
	head := body[:cut]
	if !strings.HasSuffix(head, "\n\n") {
		head += "\n"
	}
	return head + extra + body[cut:]
}

// withoutUnchanged is r without the findings its Changes list as
// unchanged since the previous version (a copy; r is not modified): the
// changes section names them in one line each instead.
func withoutUnchanged(r *report.Report) *report.Report {
	if r.Changes == nil || len(r.Changes.Unchanged) == 0 {
		return r
	}
	c := *r
	c.Patches = make([]report.PatchReport, len(r.Patches))
	for i, p := range r.Patches {
		q := p
		q.Findings = nil
		for _, f := range p.Findings {
			if !r.Changes.HasUnchanged(f.ID) {
				q.Findings = append(q.Findings, f)
			}
		}
		c.Patches[i] = q
	}
	return &c
}

// anything reports whether there is something to say about the series.
func anything(r *report.Report, ps []*report.PatchReport, opts Options) bool {
	if r.VM != nil {
		return true
	}
	if c := r.Changes; c != nil && len(c.Fixed)+len(c.New)+len(c.Unchanged) > 0 {
		return true
	}
	for _, p := range ps {
		if hasStable(p) || len(selectFindings(p.Findings, opts)) > 0 {
			return true
		}
	}
	return false
}

func patchReports(r *report.Report) []*report.PatchReport {
	var out []*report.PatchReport
	for i := range r.Patches {
		out = append(out, &r.Patches[i])
	}
	return out
}

// seriesMsgs finds the message of a patch report in a series: by
// Message-ID among its patches, then its review diffs (the first listed
// wins), or, for a report without one, by number among its patches. It is
// built once per Compose: a series reply names every patch, and a search
// of the series per patch made composing quadratic in the series length.
type seriesMsgs struct {
	byID  map[string]*amail.Message
	byNum map[int]*amail.Message
}

func newSeriesMsgs(s *series.Series) *seriesMsgs {
	m := &seriesMsgs{byID: map[string]*amail.Message{}, byNum: map[int]*amail.Message{}}
	for _, list := range [][]*series.Patch{s.Patches, s.Review} {
		for _, sp := range list {
			if sp == nil || sp.Msg == nil {
				continue
			}
			if _, ok := m.byID[sp.Msg.MessageID]; !ok {
				m.byID[sp.Msg.MessageID] = sp.Msg
			}
		}
	}
	for _, sp := range s.Patches {
		if sp == nil || sp.Msg == nil {
			continue
		}
		if _, ok := m.byNum[sp.Number]; !ok {
			m.byNum[sp.Number] = sp.Msg
		}
	}
	return m
}

// find returns the message of patch report p, or nil.
func (m *seriesMsgs) find(p *report.PatchReport) *amail.Message {
	if msg, ok := m.byID[p.MessageID]; ok {
		return msg
	}
	if p.MessageID == "" {
		return m.byNum[p.Number]
	}
	return nil
}

// newMail builds the headers of a reply to msg about patches ps.
func newMail(msg *amail.Message, s *series.Series, msgs *seriesMsgs, ps []*report.PatchReport, body, id string, patch int, opts Options) *Mail {
	from := opts.fromAddr()
	m := &Mail{
		From:      from,
		Subject:   replySubject(msg.Subject.Raw),
		Date:      opts.now(),
		MessageID: id,
		InReplyTo: strings.Trim(msg.MessageID, "<>"),
		Patch:     patch,
		Body:      body,
	}
	for _, ref := range msg.References {
		if ref = strings.Trim(ref, "<> "); ref != "" && ref != m.InReplyTo {
			m.References = append(m.References, ref)
		}
	}
	if len(m.References) == 0 && msg.InReplyTo != "" {
		m.References = append(m.References, strings.Trim(msg.InReplyTo, "<>"))
	}
	m.References = append(m.References, m.InReplyTo)

	var pms []*amail.Message
	for _, p := range ps {
		if pm := msgs.find(p); pm != nil {
			pms = append(pms, pm)
		}
	}
	if len(pms) == 0 {
		pms = append(pms, msg)
	}
	stable := false
	for _, p := range ps {
		stable = stable || hasStable(p)
	}
	addRecipients(m, msg, pms, stable, opts)
	m.Dropped = capRecipients(m, msg.From.Addr, opts)
	ensureTo(m)
	m.Headers = [][2]string{
		{"Auto-Submitted", "auto-generated"},
		{"X-Autosel-Bot", strings.TrimSpace("autosel-bot " + opts.Version)},
	}
	return m
}

// capRecipients trims To and Cc to opts.MaxRecipients addresses: first
// the author answered, the kept lists and the stable list, then the others
// in order (To before Cc). It returns the dropped addresses.
func capRecipients(m *Mail, author string, opts Options) []string {
	limit := opts.MaxRecipients
	if limit <= 0 || len(m.To)+len(m.Cc) <= limit {
		return nil
	}
	must := func(a *mail.Address) bool {
		k := strings.ToLower(a.Address)
		if k == strings.ToLower(author) || k == strings.ToLower(opts.stableList()) {
			return true
		}
		for _, l := range opts.KeepLists {
			if listKey(l) == listKey(k) {
				return true
			}
		}
		return false
	}
	all := append(append([]*mail.Address(nil), m.To...), m.Cc...)
	keep := make([]bool, len(all))
	n := 0
	for pass := 0; pass < 2; pass++ {
		for i, a := range all {
			if !keep[i] && n < limit && (pass == 1 || must(a)) {
				keep[i] = true
				n++
			}
		}
	}
	var dropped []string
	to, cc := m.To[:0:0], m.Cc[:0:0]
	for i, a := range all {
		switch {
		case !keep[i]:
			dropped = append(dropped, a.Address)
		case i < len(m.To):
			to = append(to, a)
		default:
			cc = append(cc, a)
		}
	}
	m.To, m.Cc = to, cc
	return dropped
}

// listKey turns a list address or List-Id ("<x.y.org>", "x@y.org") into
// one comparable form ("x.y.org").
func listKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		s = s[i+1:]
	}
	return strings.Replace(strings.TrimSuffix(s, ">"), "@", ".", 1)
}

var replyPrefixRE = regexp.MustCompile(`(?i)^\s*re\s*:`)

func replySubject(s string) string {
	s = strings.TrimSpace(cleanLine(s))
	if replyPrefixRE.MatchString(s) {
		return s
	}
	return "Re: " + s
}

// addrBook de-duplicates recipients across To and Cc, and keeps out the
// bot itself, obfuscated archive addresses ("x@xxxxxxxx"), addresses in
// .invalid (the stand-ins for a sender without one) and, unless allowed,
// the stable list (it is Cc'd only when stable trees were tested).
type addrBook struct {
	seen        map[string]bool
	bot, stable string
	allowStable bool
}

func newAddrBook(bot, stable string) *addrBook {
	return &addrBook{seen: map[string]bool{}, bot: strings.ToLower(bot), stable: strings.ToLower(stable)}
}

var obfuscatedRE = regexp.MustCompile(`@x+$`)

// undeliverable reports an address in a domain reserved never to resolve
// (.invalid, RFC 2606), as the bot's own stand-in for a sender a message
// does not name (mail.UnknownSender).
func undeliverable(addr string) bool {
	_, domain, _ := strings.Cut(addr, "@")
	return domain == "invalid" || strings.HasSuffix(domain, ".invalid")
}

func (ab *addrBook) add(list *[]*mail.Address, name, addr string) {
	addr = strings.TrimSpace(addr)
	k := strings.ToLower(addr)
	if k == "" || ab.seen[k] || k == ab.bot || obfuscatedRE.MatchString(k) || undeliverable(k) {
		return
	}
	if (k == ab.stable || k == "stable@vger.kernel.org" || k == "stable@kernel.org") && !ab.allowStable {
		return
	}
	// Only well-formed addresses: hostile input must not inject headers.
	a, err := mail.ParseAddress(addr)
	if err != nil || strings.ContainsAny(addr, "\r\n<>,;\" ") {
		return
	}
	ab.seen[k] = true
	a.Name = cleanLine(name)
	*list = append(*list, a)
}

// addRaw adds the address of a trailer value such as "Name <a@b> # note".
func (ab *addrBook) addRaw(list *[]*mail.Address, v string) {
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	a, err := mail.ParseAddress(strings.TrimSpace(v))
	if err != nil {
		// "Name <a@b>" with odd characters in the name: keep the address.
		if i, j := strings.IndexByte(v, '<'), strings.LastIndexByte(v, '>'); i >= 0 && j > i {
			ab.add(list, strings.Trim(strings.TrimSpace(v[:i]), `"`), v[i+1:j])
		}
		return
	}
	ab.add(list, a.Name, a.Address)
}
