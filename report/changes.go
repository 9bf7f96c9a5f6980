package report

import (
	"strconv"
	"strings"
)

// Changes compares a version of a series with the previous version
// analysed: findings matched by id (fixed, new, unchanged) and the
// patches matched by patch-id, as git range-diff lists them.
type Changes struct {
	// PreviousVersion is the version compared with (vN-1).
	PreviousVersion int `json:"previous_version"`
	// PreviousID is the previous version's series ID (a Message-ID).
	PreviousID string `json:"previous_id"`
	// Fixed are the findings the previous version reported that this
	// one has no more.
	Fixed []FindingRef `json:"fixed"`
	// New are the findings this version reports that the previous one
	// did not.
	New []FindingRef `json:"new"`
	// Unchanged are the findings both versions report (mail lists them
	// in one line each instead of repeating them).
	Unchanged []FindingRef `json:"unchanged"`
	// Patches pair the two versions' patches (range-diff by patch-id).
	Patches []PatchChange `json:"patches"`
}

// FindingRef names a finding in one line.
type FindingRef struct {
	// ID is the finding's id.
	ID string `json:"id"`
	// Severity, Check (category, else rule), File, Func and Message are
	// the finding's.
	Severity Severity `json:"severity"`
	Check    string   `json:"check"`
	File     string   `json:"file"`
	Func     string   `json:"func,omitempty"`
	Message  string   `json:"message"`
}

// Range-diff marks of a PatchChange.
const (
	// PatchSame: the same change (same patch-id).
	PatchSame = "="
	// PatchChanged: the patch changed (same subject, other patch-id).
	PatchChanged = "!"
	// PatchRemoved: only in the previous version.
	PatchRemoved = "<"
	// PatchAdded: only in this version.
	PatchAdded = ">"
)

// PatchChange pairs a patch of the previous version with one of this
// version, as a line of git range-diff does.
type PatchChange struct {
	// Old is n of n/N in the previous version; 0 for an added patch.
	Old int `json:"old"`
	// New is n of n/N in this version; 0 for a removed patch.
	New int `json:"new"`
	// Mark is "=" (same patch-id), "!" (changed), "<" (removed) or ">"
	// (added).
	Mark string `json:"mark"`
	// OldID and NewID are the two patch-ids (diffcheck.PatchID).
	OldID string `json:"old_id,omitempty"`
	NewID string `json:"new_id,omitempty"`
	// Subject is the patch's subject (this version's when it has one).
	Subject string `json:"subject"`
}

// Line is "0123456789ab sleep-in-atomic: file func(): message".
func (f FindingRef) Line() string {
	where := f.File
	if f.Func != "" {
		where += " " + f.Func + "()"
	}
	return f.ID + " " + f.Check + ": " + where + ": " + f.Message
}

// ref is the one-line reference of f.
func ref(f *Finding) FindingRef {
	return FindingRef{ID: f.ID, Severity: f.Severity, Check: f.Check(), File: f.File, Func: f.Func, Message: f.Message}
}

// Compare returns what changed from prev, the report of the previous
// version of the series, to cur: findings by id (a finding cur suppresses
// is neither new nor fixed) and patches by patch-id.
func Compare(prev, cur *Report) *Changes {
	AssignIDs(prev)
	AssignIDs(cur)
	c := &Changes{PreviousVersion: prev.Version, PreviousID: prev.SeriesID,
		Fixed: []FindingRef{}, New: []FindingRef{}, Unchanged: []FindingRef{}}
	was, wasAny := map[string]bool{}, map[string]bool{}
	each(prev, func(f *Finding) { wasAny[f.ID] = true })
	for _, p := range prev.Patches {
		for _, f := range p.Findings {
			was[f.ID] = true
		}
	}
	now := map[string]bool{}
	each(cur, func(f *Finding) { now[f.ID] = true })
	for _, p := range cur.Patches {
		for i := range p.Findings {
			f := &p.Findings[i]
			if was[f.ID] {
				c.Unchanged = append(c.Unchanged, ref(f))
			} else {
				c.New = append(c.New, ref(f))
			}
		}
	}
	for _, p := range prev.Patches {
		for i := range p.Findings {
			if f := &p.Findings[i]; !now[f.ID] {
				c.Fixed = append(c.Fixed, ref(f))
			}
		}
	}
	c.Patches = rangeDiff(prev.Patches, cur.Patches)
	return c
}

// rangeDiff pairs submitted patches: by patch-id first, then by subject
// (changed), in this version's order; previous patches left over are
// removed.
func rangeDiff(prev, cur []PatchReport) []PatchChange {
	used := make([]bool, len(prev))
	match := func(same func(a, b *PatchReport) bool, p *PatchReport) int {
		for i := range prev {
			if !used[i] && !prev[i].InReview && same(&prev[i], p) {
				used[i] = true
				return i
			}
		}
		return -1
	}
	var out []PatchChange
	var pending []int // this version's patches not matched by patch-id
	pos := map[int]int{}
	for j := range cur {
		p := &cur[j]
		if p.InReview {
			continue
		}
		if i := match(func(a, b *PatchReport) bool { return a.PatchID != "" && a.PatchID == b.PatchID }, p); i >= 0 {
			out = append(out, PatchChange{Old: prev[i].Number, New: p.Number, Mark: PatchSame, OldID: prev[i].PatchID, NewID: p.PatchID, Subject: p.Subject})
			continue
		}
		pos[j] = len(out)
		out = append(out, PatchChange{New: p.Number, Mark: PatchAdded, NewID: p.PatchID, Subject: p.Subject})
		pending = append(pending, j)
	}
	for _, j := range pending {
		p := &cur[j]
		if i := match(func(a, b *PatchReport) bool { return subjectTitle(a.Subject) == subjectTitle(b.Subject) }, p); i >= 0 {
			pc := &out[pos[j]]
			pc.Old, pc.Mark, pc.OldID = prev[i].Number, PatchChanged, prev[i].PatchID
		}
	}
	for i := range prev {
		if !used[i] && !prev[i].InReview {
			out = append(out, PatchChange{Old: prev[i].Number, Mark: PatchRemoved, OldID: prev[i].PatchID, Subject: prev[i].Subject})
		}
	}
	return out
}

// subjectTitle is a subject without its "[PATCH ...]" tags and "Re:", in
// lower case.
func subjectTitle(s string) string {
	s = strings.TrimSpace(s)
	for {
		switch {
		case strings.HasPrefix(strings.ToLower(s), "re:"):
			s = strings.TrimSpace(s[3:])
			continue
		case strings.HasPrefix(s, "["):
			if i := strings.IndexByte(s, ']'); i > 0 {
				s = strings.TrimSpace(s[i+1:])
				continue
			}
		}
		break
	}
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Summary is "1 fixed, 0 new, 2 unchanged".
func (c *Changes) Summary() string {
	return strconv.Itoa(len(c.Fixed)) + " fixed, " + strconv.Itoa(len(c.New)) + " new, " + strconv.Itoa(len(c.Unchanged)) + " unchanged"
}

// RangeDiffLines renders Patches as git range-diff does: "1:  0123456 =
// 1:  0123456 subject" ("-:  -------" for a side without the patch).
func (c *Changes) RangeDiffLines() []string {
	side := func(n int, id string) string {
		if n == 0 {
			return "-:  -------"
		}
		if len(id) > 7 {
			id = id[:7]
		}
		if id == "" {
			id = "0000000"
		}
		return strconv.Itoa(n) + ":  " + id
	}
	var out []string
	for _, p := range c.Patches {
		out = append(out, side(p.Old, p.OldID)+" "+p.Mark+" "+side(p.New, p.NewID)+" "+subjectTitle(p.Subject))
	}
	return out
}

// HasUnchanged reports whether f is a finding c lists as unchanged.
func (c *Changes) HasUnchanged(id string) bool {
	if c == nil {
		return false
	}
	for _, u := range c.Unchanged {
		if u.ID == id {
			return true
		}
	}
	return false
}
