package stable

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
)

// Kinds of relevance, in the order they are preferred for the reason text.
const (
	KindStableTag = "stable-tag"
	KindFixes     = "fixes"
	KindAutosel   = "autosel"
)

// Tags are the stable-relevant facts of one patch mail.
type Tags struct {
	// Stable is set when the patch Cc's stable; Range is its annotation.
	Stable bool
	Range  TagRange
	// Fixes are the commits named by Fixes: tags (subject as given).
	Fixes []report.Commit
	// Autosel is the version of an "[PATCH AUTOSEL 5.5 n/m]" subject.
	Autosel string
}

// ParseTags collects the stable-relevant facts of m: its Cc: stable
// trailers (mail.StableTags; several tags widen the range), its Fixes:
// trailers (mail.Fixes) and an AUTOSEL subject version.
func ParseTags(m *mail.Message) Tags {
	var t Tags
	for _, st := range mail.StableTags(m) {
		r := TagRange{Only: st.Only}
		if st.Since != "" {
			r.From, _ = ParseVersion(st.Since)
		}
		if st.Until != "" {
			r.Until, _ = ParseVersion(st.Until)
		}
		if !t.Stable {
			t.Stable, t.Range = true, r
		} else {
			t.Range = t.Range.union(r)
		}
	}
	seen := map[string]bool{}
	for _, f := range mail.Fixes(m) {
		if len(f.SHA) < 7 || seen[f.SHA[:7]] {
			continue
		}
		seen[f.SHA[:7]] = true
		t.Fixes = append(t.Fixes, report.Commit{SHA: f.SHA, Subject: f.Subject})
	}
	t.Autosel = m.Subject.Autosel
	if t.Autosel == "" {
		t.Autosel = autoselFromSubject(m.Subject.Raw)
	}
	return t
}

var autoselRE = regexp.MustCompile(`(?i)\[[^\]]*\bAUTOSEL\s+v?([0-9]+\.[0-9]+)`)

func autoselFromSubject(s string) string {
	if m := autoselRE.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// Relevance says which configured trees a patch is relevant to, and why.
type Relevance struct {
	// Kind is KindStableTag, KindFixes or KindAutosel ("" = not relevant).
	Kind string
	// Reason is the stable bot's sentence(s) saying why.
	Reason string
	// Relevant is "all", "5.4+", ... (the stable tag's range; for Fixes:
	// and AUTOSEL, the trees' names).
	Relevant string
	// Fixes are the Fixes: commits, subjects filled in from upstream.
	Fixes []report.Commit
	// Trees are the indexes (into Options.Trees) of the relevant trees.
	Trees []int
	// Why maps a tree index to a short note on why it was selected or not
	// (e.g. "contains 1234567890ab", "version 4.4 < 5.4").
	Why map[int]string
}

// Relevant decides which configured trees the patch in m is relevant to:
// a stable Cc selects the trees of its version range ("all" unannotated);
// Fixes: selects the trees that contain a fixed commit (by ancestry, or a
// backport with the same subject); an AUTOSEL subject selects the trees of
// its version. A stable tag wins over Fixes: for the reason text.
func Relevant(ctx context.Context, m *mail.Message, opts Options) (*Relevance, error) {
	opts = opts.withDefaults()
	tags := ParseTags(m)
	rel := &Relevance{Why: map[int]string{}}
	up := git.New(opts.upstreamRepo())
	// Fill in missing Fixes: subjects from upstream.
	for i, f := range tags.Fixes {
		if f.Subject != "" || opts.upstreamRepo() == "" {
			continue
		}
		if s, err := commitSubject(ctx, up, f.SHA); err == nil {
			tags.Fixes[i].Subject = s
		}
	}
	rel.Fixes = tags.Fixes
	switch {
	case tags.Stable:
		rel.Kind = KindStableTag
		rel.Relevant = tags.Range.String()
		rel.Reason = "This commit has been processed because it contains a -stable tag.\n" +
			"The stable tag indicates that it's relevant for the following trees: " + rel.Relevant
		for i, t := range opts.Trees {
			v := treeVersion(t)
			if tags.Range.Contains(v) {
				rel.Trees = append(rel.Trees, i)
				rel.Why[i] = "stable tag " + rel.Relevant
			} else {
				rel.Why[i] = fmt.Sprintf("version %s not in %s", v, rel.Relevant)
			}
		}
	case len(tags.Fixes) > 0:
		rel.Kind = KindFixes
		var names []string
		for _, f := range tags.Fixes {
			names = append(names, f.String())
		}
		rel.Reason = "This commit has been processed because it contains a \"Fixes:\" tag\n" +
			"fixing commit: " + strings.Join(names, ", ") + "."
		for i, t := range opts.Trees {
			why, ok, err := containsAny(ctx, opts, t, tags.Fixes)
			if err != nil {
				return nil, err
			}
			rel.Why[i] = why
			if ok {
				rel.Trees = append(rel.Trees, i)
			}
		}
	case tags.Autosel != "":
		rel.Kind = KindAutosel
		v, _ := ParseVersion(tags.Autosel)
		rel.Relevant = v.String()
		rel.Reason = "This commit has been processed because it was selected by AUTOSEL for the " +
			v.String() + " stable tree."
		for i, t := range opts.Trees {
			if treeVersion(t) == v {
				rel.Trees = append(rel.Trees, i)
				rel.Why[i] = "AUTOSEL " + v.String()
			} else {
				rel.Why[i] = "not AUTOSEL " + v.String()
			}
		}
	}
	if rel.Kind != KindStableTag {
		var names []string
		for _, i := range rel.Trees {
			names = append(names, opts.Trees[i].Name)
		}
		if rel.Relevant == "" || rel.Kind == KindFixes {
			rel.Relevant = strings.Join(names, ", ")
		}
	}
	return rel, nil
}

func treeVersion(t TreeOptions) Version {
	if t.Version != "" {
		if v, ok := ParseVersion(t.Version); ok {
			return v
		}
	}
	v, _ := ParseVersion(t.Name)
	if v == (Version{}) {
		v, _ = ParseVersion(t.Ref)
	}
	return v
}

// containsAny reports whether tree t contains one of the fixed commits:
// as an ancestor of its ref, or as a backport with the same subject.
func containsAny(ctx context.Context, opts Options, t TreeOptions, fixes []report.Commit) (string, bool, error) {
	g := git.New(opts.treeRepo(t))
	head, err := treeHead(ctx, g, t)
	if err != nil {
		// Not decidable: the tree is left out (and the reason kept).
		return err.Error(), false, nil
	}
	for _, f := range fixes {
		if full, err := g.RevParse(ctx, f.SHA); err == nil {
			if ok, err := g.IsAncestor(ctx, full, head); err != nil {
				return "", false, err
			} else if ok {
				return "contains " + f.Short(), true, nil
			}
		}
		if f.Subject != "" {
			// Backports are the tree's commits that are not upstream.
			var exclude []string
			if opts.Upstream.Ref != "" && sameRepo(opts.upstreamRepo(), opts.treeRepo(t)) {
				exclude = append(exclude, opts.Upstream.Ref)
			}
			sha, err := findSubject(ctx, g, head, f.Subject, opts.SearchLimit, exclude...)
			if err != nil {
				return "", false, err
			}
			if sha != "" {
				return fmt.Sprintf("contains %s as backport %.12s", f.Short(), sha), true, nil
			}
		}
	}
	return "does not contain the fixed commit", false, nil
}
