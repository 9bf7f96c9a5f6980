package rulestest

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
)

// RunCases runs every case file *.txtar in dir with the rule newRule
// builds, as subtests; with -update it rewrites their WANT lines instead
// of comparing.
func RunCases(t *testing.T, dir string, newRule rules.Constructor) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no case files in %s", dir)
	}
	rule, err := newRule(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		c, err := ParseCase(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(c.Name, func(t *testing.T) {
			if c.Seed != "" {
				c.checkSeed(t)
			}
			got := map[string][]string{}
			for _, m := range c.Modes {
				fs, notes := c.run(t, rule, m)
				got[m] = wantLines(fs)
				for _, e := range append(c.checkNotes(m, notes), c.checkDetails(m, fs)...) {
					t.Errorf("%s mode: %s", m, e)
				}
			}
			if *update {
				if err := c.rewrite(got); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, m := range c.Modes {
				want := append(append([]string(nil), c.Want[""]...), c.Want[m]...)
				sort.Strings(want)
				if strings.Join(got[m], "\n") != strings.Join(want, "\n") {
					t.Errorf("%s mode:\ngot:\n  %s\nwant:\n  %s\n(go test -update rewrites the WANT lines)", m,
						strings.Join(got[m], "\n  "), strings.Join(want, "\n  "))
				}
			}
		})
	}
}

// run returns the case's findings in mode, in report order, and the
// pass's notes.
func (c *Case) run(t *testing.T, rule *rules.Rule, mode string) ([]report.Finding, []string) {
	t.Helper()
	if mode == ModePatch {
		return Run(t, rule, c.Patch, "", nil)
	}
	dir, ix := c.tree(t)
	tree := diffcheck.DirTree(dir)
	if mode == ModeReverse {
		return c.runReverse(t, rule, tree, ix)
	}
	p := PassOn(t, c.Patch, tree, ix)
	switch applied := p.Change.ApplyError == ""; {
	case !applied && c.Apply == "":
		t.Fatalf("patch does not apply to the case's tree: %s", p.Change.ApplyError)
	case applied && c.Apply == ApplyConflict:
		t.Fatalf("patch applies to the case's tree, but the case says apply: %s", c.Apply)
	}
	fs := RunPass(t, rule, p)
	if c.Tree == "" && rule.Prepare != nil {
		// What the family prepares from the whole tree (stored
		// summaries) must not change a finding.
		if err := rule.Prepare(context.Background(), ix, nil); err != nil {
			t.Fatalf("prepare: %v", err)
		}
		if want, got := fullLines(t, fs), fullLines(t, RunPass(t, rule, PassOn(t, c.Patch, tree, ix))); !reflect.DeepEqual(want, got) {
			t.Errorf("findings change once the tree is prepared:\nwithout:\n%s\nwith:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
	}
	return fs, p.Notes
}

// tree returns the case's pre-patch tree and its index: the shared Linux
// 6.1 tree, or the case's files written to a temporary directory.
func (c *Case) tree(t *testing.T) (string, *index.Index) {
	t.Helper()
	if c.Tree == TreeLinux61 {
		return Kernel(t)
	}
	return writeTree(t, c.Files)
}

// runReverse applies the patch onto tree, then runs the rule on the
// reverse patch applied on top, with the index of the patched tree.
func (c *Case) runReverse(t *testing.T, rule *rules.Rule, tree diffcheck.Tree, ix *index.Index) ([]report.Finding, []string) {
	t.Helper()
	fwd := PassOn(t, c.Patch, tree, ix)
	if fwd.Change.ApplyError != "" {
		t.Fatalf("patch does not apply to the case's tree: %s", fwd.Change.ApplyError)
	}
	files := fwd.Change.Tree.(*diffcheck.PatchedTree).Files()
	rev, err := diffcheck.ReverseDiff(c.Patch)
	if err != nil {
		t.Fatal(err)
	}
	p := PassOn(t, rev, &overlayTree{base: tree, files: files}, ix.Overlay(files))
	if p.Change.ApplyError != "" {
		t.Fatalf("reverse patch does not apply to the patched tree: %s", p.Change.ApplyError)
	}
	return RunPass(t, rule, p), p.Notes
}

// overlayTree is a tree with some files replaced (nil: deleted), such as
// a tree with a patch applied, as a base for another patch.
type overlayTree struct {
	base  diffcheck.Tree
	files map[string][]byte
}

// Root returns the base tree's root.
func (t *overlayTree) Root() string { return t.base.Root() }

// Name is how reports name the base tree.
func (t *overlayTree) Name() string { return diffcheck.TreeName(t.base) }

// ReadFile returns the replaced file, else the base tree's.
func (t *overlayTree) ReadFile(p string) ([]byte, error) {
	if b, ok := t.files[p]; ok {
		if b == nil {
			return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
		}
		return b, nil
	}
	return t.base.ReadFile(p)
}

// fullLines renders every field of fs, chains included, sorted.
func fullLines(t *testing.T, fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// wantLines returns the sorted WANT lines of fs.
func wantLines(fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, WantLine(f))
	}
	sort.Strings(out)
	return out
}
