package series

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/mail"
)

// DefaultWindow is the default time window for re-threading unthreaded
// parts of one series.
const DefaultWindow = 24 * time.Hour

// maxClimb bounds walks up the reply chain (hostile References loops).
const maxClimb = 256

// Options tune Assemble.
type Options struct {
	// Window is how far apart in time unthreaded parts of one series (same
	// author, version and part count) may be to be joined; DefaultWindow
	// when 0.
	Window time.Duration
}

// partKey identifies the series a patch or cover letter belongs to.
type partKey struct {
	root    string // thread root Message-ID (own ID for unnumbered patches)
	version int
	total   int
	tag     string // AUTOSEL/stable/tree keywords and RFC
}

// group is a series under construction.
type group struct {
	key        partKey
	author     string // sender of the first part seen
	cover      *mail.Message
	parts      map[int]*mail.Message
	extra      []*mail.Message // numbered parts beyond Total
	dups       []*mail.Message // duplicate covers and parts (kept out of the series, noted)
	notes      []string
	first      time.Time
	unthreaded bool
	merged     bool
}

// assembler holds the indexes of one Assemble call.
type assembler struct {
	opts    Options
	byID    map[string]*mail.Message
	roots   map[string]string
	member  map[string]*Series // Message-ID -> series it belongs to (cover, patches)
	partNum map[string]int     // Message-ID -> part number of a member
}

// Assemble groups messages into patch series.
//
// Patches are grouped by thread (In-Reply-To/References) with their cover
// letter (0/N), whatever order they arrived in; parts of a series that were
// sent unthreaded are joined by author, version, part count and a time
// window. Missing parts make a series Incomplete ("missing 2/3"), never
// dropped. Duplicates (the same Message-ID, or the same n/N of a series
// twice) are kept once and noted. Versions of a series by one author with
// a common (cover or patch) title are linked with Supersedes/SupersededBy.
// A patch without n/N is a series of one. Replies are attached to the
// series of the message they answer (transitively), and replies carrying
// an inline diff become Review patches (InReview) of that series. Mail that
// is neither a patch nor part of a patch thread is not a series.
//
// Output is deterministic: series by date then ID, patches by number,
// replies by date then Message-ID.
func Assemble(msgs []*mail.Message, opts Options) []*Series {
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	a := &assembler{
		opts:    opts,
		byID:    make(map[string]*mail.Message, len(msgs)),
		roots:   make(map[string]string, len(msgs)),
		member:  make(map[string]*Series),
		partNum: make(map[string]int),
	}
	sorted := make([]*mail.Message, 0, len(msgs))
	for _, m := range msgs {
		if m != nil {
			sorted = append(sorted, m)
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool { return msgLess(sorted[i], sorted[j]) })
	var uniq []*mail.Message
	dupIDs := map[string]int{}
	for _, m := range sorted {
		if _, ok := a.byID[m.MessageID]; ok {
			dupIDs[m.MessageID]++
			continue
		}
		a.byID[m.MessageID] = m
		uniq = append(uniq, m)
	}

	order := a.groupParts(uniq)
	a.rethread(order)
	var out []*Series
	for _, g := range order {
		if g.merged {
			continue
		}
		out = append(out, a.build(g))
	}
	for id, n := range dupIDs {
		if s := a.member[id]; s != nil {
			s.Notes = append(s.Notes, fmt.Sprintf("duplicate message <%s> seen %d more time(s), kept once", id, n))
		}
	}
	a.attachReplies(uniq, out)
	linkVersions(out)
	for _, s := range out {
		sort.Strings(s.Notes)
		sort.SliceStable(s.Replies, func(i, j int) bool { return msgLess(s.Replies[i], s.Replies[j]) })
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Date.Equal(out[j].Date) {
			return out[i].Date.Before(out[j].Date)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func msgLess(a, b *mail.Message) bool {
	if !a.Date.Equal(b.Date) {
		return a.Date.Before(b.Date)
	}
	return a.MessageID < b.MessageID
}

// kind classifies a message for assembly.
type kind int

const (
	kindOther kind = iota
	kindCover
	kindPatch
	kindReview
)

func classify(m *mail.Message) kind {
	s := &m.Subject
	switch {
	case m.InlineReview:
		return kindReview
	case s.Reply:
		return kindOther
	case s.Patch && s.Number == 0 && s.Total > 0 && m.Diff == "":
		return kindCover
	case s.Patch || m.Diff != "":
		return kindPatch
	}
	return kindOther
}

// parent returns the known message m replies to, or nil.
func (a *assembler) parent(m *mail.Message) *mail.Message {
	if p := a.byID[m.InReplyTo]; p != nil && p != m {
		return p
	}
	for i := len(m.References) - 1; i >= 0; i-- {
		if p := a.byID[m.References[i]]; p != nil && p != m {
			return p
		}
	}
	return nil
}

// root returns the thread root Message-ID of m: the top of its known reply
// chain, or the first referenced (unknown) message above it.
func (a *assembler) root(m *mail.Message) string {
	if r, ok := a.roots[m.MessageID]; ok {
		return r
	}
	top := m
	for i := 0; i < maxClimb; i++ {
		p := a.parent(top)
		if p == nil {
			break
		}
		if r, ok := a.roots[p.MessageID]; ok {
			a.roots[m.MessageID] = r
			return r
		}
		top = p
	}
	r := top.MessageID
	switch {
	case len(top.References) > 0:
		r = top.References[0]
	case top.InReplyTo != "":
		r = top.InReplyTo
	}
	a.roots[m.MessageID] = r
	return r
}

func tagOf(s *mail.Subject) string {
	t := s.Autosel + "|" + s.Stable + "|" + s.Tree
	if s.RFC {
		t += "|rfc"
	}
	return t
}

// groupParts groups covers and patches by thread, author and version.
func (a *assembler) groupParts(msgs []*mail.Message) []*group {
	groups := map[partKey]*group{}
	var order []*group
	for _, m := range msgs {
		k := classify(m)
		if k != kindCover && k != kindPatch {
			continue
		}
		s := &m.Subject
		key := partKey{version: s.Version, total: s.Total, tag: tagOf(s)}
		if s.Total == 0 {
			key.root = m.MessageID // a single patch is its own series
		} else {
			// A thread holds one series per version and size, whoever
			// sent each part (format-patch output of a branch has one
			// From per commit author). An unthreaded part is its own
			// root; rethread joins those by author.
			key.root = a.root(m)
		}
		g := groups[key]
		if g == nil {
			g = &group{key: key, author: m.From.Addr, parts: map[int]*mail.Message{}, first: m.Date}
			g.unthreaded = s.Total > 0 && m.InReplyTo == "" && len(m.References) == 0
			groups[key] = g
			order = append(order, g)
		} else if m.InReplyTo != "" || len(m.References) > 0 {
			g.unthreaded = false
		}
		if k == kindCover {
			if g.cover != nil {
				g.notes = append(g.notes, fmt.Sprintf("duplicate cover letter 0/%d <%s> ignored", s.Total, m.MessageID))
				g.dups = append(g.dups, m)
				continue
			}
			g.cover = m
			continue
		}
		n := s.Number
		if s.Total == 0 {
			n = 1
		}
		if s.Total > 0 && (n < 1 || n > s.Total) {
			g.extra = append(g.extra, m)
			g.notes = append(g.notes, fmt.Sprintf("part %d/%d <%s> is out of range", n, s.Total, m.MessageID))
			continue
		}
		if old := g.parts[n]; old != nil {
			g.notes = append(g.notes, fmt.Sprintf("duplicate %d/%d <%s> ignored (kept <%s>)", n, max(s.Total, 1), m.MessageID, old.MessageID))
			g.dups = append(g.dups, m)
			continue
		}
		g.parts[n] = m
	}
	return order
}

// rethread joins incomplete groups of unthreaded parts: same author,
// version, part count and tags, disjoint part numbers, within the window.
func (a *assembler) rethread(order []*group) {
	type simKey struct {
		author  string
		version int
		total   int
		tag     string
	}
	open := map[simKey][]*group{}
	for _, g := range order {
		if g.key.total < 2 || g.complete() {
			continue
		}
		sk := simKey{g.author, g.key.version, g.key.total, g.key.tag}
		merged := false
		for _, h := range open[sk] {
			if h.merged || h.complete() || !(g.unthreaded || h.unthreaded) {
				continue
			}
			if g.first.Sub(h.first) > a.opts.Window || h.first.Sub(g.first) > a.opts.Window {
				continue
			}
			if !h.disjoint(g) {
				continue
			}
			h.absorb(g)
			merged = true
			break
		}
		if !merged {
			open[sk] = append(open[sk], g)
		}
	}
}

func (g *group) complete() bool {
	if g.key.total == 0 {
		return true
	}
	return len(g.parts) == g.key.total
}

func (g *group) disjoint(o *group) bool {
	if g.cover != nil && o.cover != nil {
		return false
	}
	for n := range o.parts {
		if g.parts[n] != nil {
			return false
		}
	}
	return true
}

func (g *group) absorb(o *group) {
	if g.cover == nil {
		g.cover = o.cover
	}
	var ids []string
	for n, m := range o.parts {
		g.parts[n] = m
		ids = append(ids, fmt.Sprintf("%d/%d", n, g.key.total))
	}
	sort.Strings(ids)
	g.extra = append(g.extra, o.extra...)
	g.dups = append(g.dups, o.dups...)
	g.notes = append(g.notes, o.notes...)
	g.notes = append(g.notes, fmt.Sprintf("part(s) %s joined by author, version and time (not threaded)", strings.Join(ids, ", ")))
	if o.first.Before(g.first) {
		g.first = o.first
	}
	o.merged = true
}

// build turns a group into a Series and records its members.
func (a *assembler) build(g *group) *Series {
	s := &Series{
		Version: g.key.version,
		Total:   max(g.key.total, 1),
		Cover:   g.cover,
		Notes:   append([]string(nil), g.notes...),
		Thread:  g.key.root,
	}
	nums := make([]int, 0, len(g.parts))
	for n := range g.parts {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		s.Patches = append(s.Patches, &Patch{Msg: g.parts[n], Number: n})
	}
	var lead *mail.Message
	switch {
	case g.cover != nil:
		lead = g.cover
	case len(s.Patches) > 0:
		lead = s.Patches[0].Msg
	case len(g.extra) > 0:
		lead = g.extra[0]
	}
	s.ID = lead.MessageID
	s.Title = lead.Subject.Title
	s.Author = lead.From
	s.RFC = lead.Subject.RFC
	s.Resend = lead.Subject.Resend
	s.Date = lead.Date
	all := append([]*mail.Message{}, g.extra...)
	if g.cover != nil {
		all = append(all, g.cover)
		a.partNum[g.cover.MessageID] = 0
	}
	for _, p := range s.Patches {
		all = append(all, p.Msg)
		a.partNum[p.Msg.MessageID] = p.Number
	}
	for _, m := range all {
		if m.Date.Before(s.Date) {
			s.Date = m.Date
		}
		a.member[m.MessageID] = s
	}
	for _, m := range g.dups {
		// Replies to a duplicate belong to this series too.
		a.member[m.MessageID] = s
		a.partNum[m.MessageID] = m.Subject.Number
	}
	if g.key.total > 0 {
		var missing []string
		for n := 1; n <= g.key.total; n++ {
			if g.parts[n] == nil {
				missing = append(missing, fmt.Sprintf("%d/%d", n, g.key.total))
			}
		}
		if len(missing) > 0 {
			if len(missing) > 10 {
				missing = append(missing[:10], fmt.Sprintf("... (%d parts missing)", len(missing)))
			}
			s.Incomplete = "missing " + strings.Join(missing, ", ")
		}
		if g.cover == nil && g.key.root != s.ID && a.byID[g.key.root] == nil {
			s.Notes = append(s.Notes, fmt.Sprintf("thread root <%s> (cover letter?) not in input", g.key.root))
		}
	}
	return s
}

// attachReplies attaches every non-member message to the series of the
// message it answers, directly or through other replies.
func (a *assembler) attachReplies(msgs []*mail.Message, out []*Series) {
	byRoot := map[string][]*Series{}
	for _, s := range out {
		byRoot[s.Thread] = append(byRoot[s.Thread], s)
	}
	for _, m := range msgs {
		if a.member[m.MessageID] != nil {
			continue
		}
		s, num := a.seriesOf(m)
		if s == nil {
			// The message it answers is not in the input; fall back to
			// the thread root when exactly one series lives there.
			if cands := byRoot[a.root(m)]; len(cands) == 1 && a.root(m) != m.MessageID {
				s, num = cands[0], 0
			}
		}
		if s == nil {
			continue
		}
		s.Replies = append(s.Replies, m)
		if classify(m) == kindReview {
			s.Review = append(s.Review, &Patch{Msg: m, Number: num, InReview: true})
		}
	}
}

// seriesOf climbs the reply chain of m to the first series member and
// returns that series and the member's part number.
func (a *assembler) seriesOf(m *mail.Message) (*Series, int) {
	cur := m
	for i := 0; i < maxClimb; i++ {
		p := a.parent(cur)
		if p == nil {
			return nil, 0
		}
		if s := a.member[p.MessageID]; s != nil {
			return s, a.partNum[p.MessageID]
		}
		cur = p
	}
	return nil, 0
}

// normTitle normalises a title for version matching.
func normTitle(t string) string {
	t = strings.ToLower(strings.Join(strings.Fields(t), " "))
	return strings.TrimRight(t, ". ")
}

// linkVersions links versions of the same series by one author: series
// sharing a normalised cover or patch title, ordered by version and date.
func linkVersions(out []*Series) {
	type tk struct{ author, title string }
	parent := make([]int, len(out))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	seen := map[tk]int{}
	for i, s := range out {
		titles := []string{}
		if s.Cover != nil {
			titles = append(titles, s.Cover.Subject.Title)
		}
		for _, p := range s.Patches {
			titles = append(titles, p.Msg.Subject.Title)
		}
		for _, t := range titles {
			k := tk{s.Author.Addr, normTitle(t)}
			if k.title == "" {
				continue
			}
			if j, ok := seen[k]; ok {
				parent[find(i)] = find(j)
			} else {
				seen[k] = i
			}
		}
	}
	comps := map[int][]*Series{}
	var roots []int
	for i := range out {
		r := find(i)
		if _, ok := comps[r]; !ok {
			roots = append(roots, r)
		}
		comps[r] = append(comps[r], out[i])
	}
	for _, r := range roots {
		c := comps[r]
		if len(c) < 2 {
			continue
		}
		sort.SliceStable(c, func(i, j int) bool {
			if c[i].Version != c[j].Version {
				return c[i].Version < c[j].Version
			}
			if !c[i].Date.Equal(c[j].Date) {
				return c[i].Date.Before(c[j].Date)
			}
			return c[i].ID < c[j].ID
		})
		for i := 1; i < len(c); i++ {
			prev, cur := c[i-1], c[i]
			if cur.Version > prev.Version || (cur.Version == prev.Version && cur.Resend) {
				if prev.SupersededBy == "" && cur.Supersedes == "" {
					prev.SupersededBy = cur.ID
					cur.Supersedes = prev.ID
				}
			}
		}
	}
}
