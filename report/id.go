package report

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
)

// IDLen is the length of a finding id: hex digits of a SHA-256.
const IDLen = 12

// idVersion changes only when what goes into an id changes (ids of the
// same findings would then differ from those an older version gave).
const idVersion = "autosel-bot finding v1"

var (
	// fileLineRE is a "path/file.c:123" (or ":123:4") reference.
	fileLineRE = regexp.MustCompile(`([A-Za-z0-9_.+/-]+\.[A-Za-z]+):\d+(?::\d+)?`)
	// lineWordRE is "line 123" or "lines 12-14" in prose.
	lineWordRE = regexp.MustCompile(`\b(lines?) \d+(?:-\d+)?`)
	// idRE is a finding id as FindingID and AssignIDs write it.
	idRE = regexp.MustCompile(`^[0-9a-f]{12}(?:-[0-9]+)?$`)
)

// ValidID reports whether s has the form of a finding id (see FindingID):
// twelve lower-case hex digits, and "-n" for the n-th finding of a report
// with the same base id.
func ValidID(s string) bool { return idRE.MatchString(s) }

// FindingID returns the stable id of f: a hash of its rule, category,
// file, function, object (Key) and normalised evidence: the code lines
// (and the removed ones) with line numbers taken out of "file:line"
// references and "line N" prose, a leading diff marker dropped and white
// space collapsed, and the call chain's steps (file, function, what
// happens there, normalised the same way: the same lines reached from two
// callers are two findings); with neither, the normalised message. Line
// numbers, the finding's place in its series (Patch) and the tree's
// commit do not go in, so the same finding has the same id after the tree moved under the
// patch (a rebase) and in the next version of the series. Two findings of
// one report can share a base id: AssignIDs numbers the later ones.
func FindingID(f *Finding) string {
	h := sha256.New()
	field := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	field(idVersion)
	field(f.Rule)
	field(f.Category)
	field(f.File)
	field(f.Func)
	field(normEvidence(f.Key))
	for _, e := range f.Evidence {
		field("+" + normEvidence(e))
	}
	for _, e := range f.Old {
		field("-" + normEvidence(e))
	}
	for _, s := range f.Chain {
		field(s.File + " " + s.Func + "(): " + normEvidence(s.What))
	}
	if len(f.Evidence)+len(f.Old)+len(f.Chain) == 0 {
		field(normEvidence(f.Message))
	}
	return hex.EncodeToString(h.Sum(nil))[:IDLen]
}

// normEvidence is s without line numbers, diff marker and extra white
// space (see FindingID).
func normEvidence(s string) string {
	s = fileLineRE.ReplaceAllString(s, "$1")
	s = lineWordRE.ReplaceAllString(s, "$1")
	if s != "" && (s[0] == '+' || s[0] == '-' || s[0] == ' ') {
		s = s[1:]
	}
	return strings.Join(strings.Fields(s), " ")
}

// AssignIDs gives every finding of r that has none (reported then
// suppressed, patch by patch, in order) its FindingID. A finding whose id
// is already taken in r (the same check on the same evidence twice) gets
// the id with "-2", "-3", ... appended. Ids already set are kept, so
// calling it again after findings moved (suppressed, filtered) changes
// nothing.
func AssignIDs(r *Report) {
	used := map[string]bool{}
	each(r, func(f *Finding) {
		if f.ID != "" {
			used[f.ID] = true
		}
	})
	// next is, per base id, the suffix its search for a free id goes on
	// from: every one below it was taken when it was tried, and taken ids
	// stay taken, so a report whose findings share one base (a 10,000-part
	// series of one edit) is not quadratic in them.
	next := map[string]int{}
	each(r, func(f *Finding) {
		if f.ID != "" {
			return
		}
		base := FindingID(f)
		id := base
		n, ok := next[base]
		if !ok {
			n = 2
		}
		if used[id] {
			for id = base + "-" + strconv.Itoa(n); used[id]; id = base + "-" + strconv.Itoa(n) {
				n++
			}
			n++
		}
		next[base] = n
		used[id] = true
		f.ID = id
	})
}

// each calls fn on every finding of r, reported then suppressed, patch by
// patch.
func each(r *Report, fn func(*Finding)) {
	for i := range r.Patches {
		p := &r.Patches[i]
		for j := range p.Findings {
			fn(&p.Findings[j])
		}
		for j := range p.Suppressed {
			fn(&p.Suppressed[j].Finding)
		}
	}
}

// FindByID returns the finding of r with the given id (reported or
// suppressed) and the patch it belongs to, or nil.
func (r *Report) FindByID(id string) (*Finding, *PatchReport) {
	id = strings.ToLower(strings.TrimSpace(id))
	for i := range r.Patches {
		p := &r.Patches[i]
		for j := range p.Findings {
			if p.Findings[j].ID == id {
				return &p.Findings[j], p
			}
		}
		for j := range p.Suppressed {
			if p.Suppressed[j].ID == id {
				return &p.Suppressed[j].Finding, p
			}
		}
	}
	return nil, nil
}

// ensureIDs gives the findings of reports that have no id one (AssignIDs),
// so that every renderer shows ids whoever built the reports.
func ensureIDs(reports []*Report) {
	for _, r := range reports {
		if r != nil {
			AssignIDs(r)
		}
	}
}
