package eval

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// corpusDir is the corpus the tests check: $EVAL_DIR, else this directory.
func corpusDir() string {
	if d := os.Getenv("EVAL_DIR"); d != "" {
		return d
	}
	return "."
}

// TestCorpusWellFormed checks every manifest, index entry and patch file
// of the corpus against eval/README.md.
func TestCorpusWellFormed(t *testing.T) {
	c, err := Load(corpusDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Problems {
		t.Error(p)
	}
	if _, err := os.Stat(filepath.Join(corpusDir(), SplitFileName)); err != nil {
		t.Errorf("the corpus has no frozen split: %v", err)
	}
	t.Logf("%d bug cases, %d near misses, %d ordinary patches, %d variants", len(c.Bugs), len(c.NearMisses), len(c.Ordinary), len(c.Variants))
}

// TestLoadProblems checks that the loader reports each kind of malformed
// case of testdata/bad.
func TestLoadProblems(t *testing.T) {
	c, err := Load(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, p := range c.Problems {
		all = append(all, p.Error())
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{
		`bugs/sleep/badcase: family "wakeup", want "sleep-in-atomic"`,
		`bugs/sleep/badcase: mechanism "sideways" is not in the sleep vocabulary`,
		`bugs/sleep/badcase: fix "1234" is neither`,
		`bugs/sleep/badcase: expect.function "foo bar" is not a C identifier`,
		`bugs/sleep/badcase: fix.patch: no unified diff found`,
		`bugs/nosuchfamily: unknown family directory`,
		`nearmiss/wakeup/nm: source missing`,
		`entry 1 (0001-a.patch): kind "tweak"`,
		`entry 2 (0002-b.patch): upstream "deadbeef" is neither`,
		`ordinary/0003-c.patch: not listed in index.yaml`,
		`split.yaml: bugs/sleep/gone: no such case`,
		`split.yaml: nearmiss/wakeup/nm: split "maybe", want train, test or seen`,
		`split.yaml: ordinary/0001-a.patch: test, but its key hashes to train`,
		`ordinary/0002-b.patch: not in split.yaml`,
		`variants/sleep/depth/sideways: axis "sideways" is not in the sleep axes`,
		`variants/sleep/depth/sideways: ok.patch without an`,
		`variants/sleep/nosuchmech: mechanism "nosuchmech" is not in the sleep vocabulary`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no problem %q in:\n%s", want, text)
		}
	}
	if len(c.Bugs) != 0 {
		t.Errorf("malformed bug case kept: %v", c.Bugs[0].Name)
	}
	if len(c.NearMisses) != 1 || len(c.Ordinary) != 2 {
		t.Errorf("near misses %d, ordinary %d: want 1 and 2 (kept, with problems)", len(c.NearMisses), len(c.Ordinary))
	}
	good, err := Load(filepath.Join("testdata", "good"))
	if err != nil {
		t.Fatal(err)
	}
	if len(good.Problems) != 0 || len(good.Bugs) != 1 || len(good.NearMisses) != 1 || len(good.Ordinary) != 1 || len(good.Variants) != 1 {
		t.Errorf("testdata/good: problems %v, %d bugs, %d near misses, %d ordinary, %d variants", good.Problems, len(good.Bugs), len(good.NearMisses), len(good.Ordinary), len(good.Variants))
	}
	if s := good.Bugs[0].Split; s != SplitTest {
		t.Errorf("testdata/good bug split %s, want test", s)
	}
	if s := good.NearMisses[0].Split; s != SplitSeen || s.Half() != SplitTrain {
		t.Errorf("testdata/good near miss split %s, want seen (train)", s)
	}
	if v := good.Variants[0]; v.Name != "sleep/depth/deeper-2" || v.OKPatch == nil || v.Axis != "deeper" {
		t.Errorf("testdata/good variant %+v", v)
	}
}

// TestCorpusApplies checks that every patch of the corpus applies to the
// 6.1 tree: bug.patch forward, then fix.patch on top giving back the tree,
// near misses forward, ordinary patches in reverse (git apply --check, the
// tree is not modified), and that the expected function is in the code.
func TestCorpusApplies(t *testing.T) {
	c, err := Load(corpusDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Bugs)+len(c.NearMisses)+len(c.Ordinary) == 0 {
		t.Skip("empty corpus")
	}
	tree := testkernel.Dir(t)
	base := diffcheck.DirTree(tree)
	for _, cs := range c.Bugs {
		t.Run(cs.Name, func(t *testing.T) {
			gitApplyCheck(t, tree, cs.Bug.Diff, false)
			bugCS := applyMemCS(t, "bug.patch", cs.Bug.Diff, base)
			bug := bugCS.Tree.(*diffcheck.PatchedTree)
			if !touches(bugCS, cs.Expect) && !cs.Split.seenBefore() {
				t.Errorf("bug.patch does not change the expected function %s (file %q)", cs.Expect.Function, cs.Expect.File)
			}
			fix := applyMem(t, "fix.patch", cs.Fix.Diff, bug)
			for p, b := range fix.Files() {
				orig, err := base.ReadFile(p)
				if b == nil && os.IsNotExist(err) {
					continue
				}
				if !bytes.Equal(orig, b) {
					t.Errorf("%s: bug.patch + fix.patch does not give back the tree's file", p)
				}
			}
			if !funcInPatched(bug, cs.Bug, cs.Expect.File, cs.Expect.Function) {
				t.Errorf("expected function %s not found in the files bug.patch touches (file %q)", cs.Expect.Function, cs.Expect.File)
			}
		})
	}
	for _, cs := range c.NearMisses {
		t.Run(cs.Name, func(t *testing.T) {
			gitApplyCheck(t, tree, cs.Bug.Diff, cs.InTree)
			if !cs.InTree {
				applyMem(t, "patch", cs.Bug.Diff, base)
				return
			}
			rev, err := Reverse(cs.Bug.Diff)
			if err != nil {
				t.Fatal(err)
			}
			pre := applyMem(t, "reverse", rev, base)
			applyMem(t, "patch", cs.Bug.Diff, pre)
		})
	}
	for _, v := range c.Variants {
		t.Run("variants/"+v.Name, func(t *testing.T) {
			gitApplyCheck(t, tree, v.Bug.Diff, false)
			if bug := applyMemCS(t, "bug.patch", v.Bug.Diff, base); !touches(bug, v.Expect) {
				t.Errorf("bug.patch does not change the expected function %s (file %q)", v.Expect.Function, v.Expect.File)
			}
			if v.OKPatch != nil {
				gitApplyCheck(t, tree, v.OKPatch.Diff, false)
				applyMem(t, "ok.patch", v.OKPatch.Diff, base)
			}
		})
	}
	for _, o := range c.Ordinary {
		t.Run(o.Name, func(t *testing.T) {
			gitApplyCheck(t, tree, o.Patch.Diff, true)
			rev, err := Reverse(o.Patch.Diff)
			if err != nil {
				t.Fatal(err)
			}
			pre := applyMem(t, "reverse", rev, base)
			post := applyMem(t, "patch", o.Patch.Diff, pre)
			for p, b := range post.Files() {
				orig, _ := base.ReadFile(p)
				if !bytes.Equal(orig, b) {
					t.Errorf("%s: reverse + patch does not give back the tree's file", p)
				}
			}
		})
	}
}

// gitApplyCheck runs `git apply --check` (reverse: -R) in the tree.
func gitApplyCheck(t *testing.T, tree, diff string, reverse bool) {
	t.Helper()
	args := []string{"apply", "--check"}
	if reverse {
		args = append(args, "-R")
	}
	testtree.GitInput(t, tree, diff, args...)
}

// applyMem applies diff onto tree in memory and fails on any conflict.
func applyMem(t *testing.T, what, diff string, tree diffcheck.Tree) *diffcheck.PatchedTree {
	t.Helper()
	return applyMemCS(t, what, diff, tree).Tree.(*diffcheck.PatchedTree)
}

// applyMemCS is applyMem returning the change set (its Funcs).
func applyMemCS(t *testing.T, what, diff string, tree diffcheck.Tree) *diffcheck.ChangeSet {
	t.Helper()
	cs, err := diffcheck.Parse(diff)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := diffcheck.ApplyTree(cs, tree); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if cs.ApplyError != "" {
		t.Errorf("%s: %s", what, cs.ApplyError)
	}
	return cs
}

// touches reports whether the patch changes the expected function (or one
// of its alternatives).
func touches(cs *diffcheck.ChangeSet, e Expect) bool {
	for _, f := range cs.Funcs {
		if e.names(f.Name) && (e.File == "" || f.File == e.File || f.Name != e.Function) {
			return true
		}
	}
	return false
}

// funcInPatched reports whether fn is defined or called in file (or, when
// file is "", in a file the patch touches) of the patched tree.
func funcInPatched(pt *diffcheck.PatchedTree, p *PatchFile, file, fn string) bool {
	files := []string{file}
	if file == "" {
		cs, err := diffcheck.Parse(p.Diff)
		if err != nil {
			return false
		}
		files = files[:0]
		for _, f := range cs.Files {
			files = append(files, f.Path())
		}
	}
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(fn) + `\s*\(`)
	for _, f := range files {
		if b, err := pt.ReadFile(f); err == nil && re.Match(b) {
			return true
		}
	}
	return false
}
