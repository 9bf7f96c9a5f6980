package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/all"
	"github.com/autosel-bot/autosel-bot/series"
)

// idCases are bug patches of the evaluation corpus whose findings
// (several per patch, some with the same evidence reached from two
// callers) the id tests follow.
var idCases = []string{
	"sleep/e1000e-hw-semaphore-usleep",
	"sleep/n-gsm-tx-lock-to-mutex",
	"wakeup/eventpoll-ovflist-missing-wakeup",
	"wakeup/pipe-wr-wait-after-max-usage",
}

// unrelated are the lines a later commit of the tree (or patch 1 of v2)
// adds above the functions a bug patch changes.
var unrelated = []string{
	"/*",
	" * Unrelated lines added above the functions of the patch: everything",
	" * below moves down, nothing else changes.",
	" */",
	"static int __maybe_unused autosel_unrelated(int x)",
	"{",
	"\treturn x + 1;",
	"}",
	"",
}

// shiftedTree is a tree whose file path has the unrelated lines inserted
// after line at, as a rebase onto a later commit of the tree gives it.
type shiftedTree struct {
	diffcheck.Tree
	path string
	data []byte
}

func (t *shiftedTree) ReadFile(p string) ([]byte, error) {
	if p == t.path {
		return t.data, nil
	}
	return t.Tree.ReadFile(p)
}

// firstFile is the first file a diff changes.
func firstFile(t *testing.T, diff string) string {
	t.Helper()
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "+++ b/") {
			return strings.TrimPrefix(l, "+++ b/")
		}
	}
	t.Fatal("no +++ line in the diff")
	return ""
}

// insertAt is the line after which the unrelated lines go: the one
// before the first #include of src (so that the functions of the file
// all move, and no hunk's context is touched).
func insertAt(t *testing.T, src []byte) int {
	t.Helper()
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, "#include") {
			if i < 3 {
				t.Fatalf("#include on line %d: no room for the context of the shift patch", i+1)
			}
			return i
		}
	}
	t.Fatal("no #include")
	return 0
}

// shifted returns src with the unrelated lines after line at.
func shifted(src []byte, at int) []byte {
	lines := strings.SplitAfter(string(src), "\n")
	var b strings.Builder
	for _, l := range lines[:at] {
		b.WriteString(l)
	}
	for _, l := range unrelated {
		b.WriteString(l + "\n")
	}
	for _, l := range lines[at:] {
		b.WriteString(l)
	}
	return []byte(b.String())
}

// shiftPatch is a diff of path adding the unrelated lines after line at
// of src (three lines of context before them).
func shiftPatch(path string, src []byte, at int) string {
	lines := strings.Split(string(src), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", path, path, path, path)
	fmt.Fprintf(&b, "@@ -%d,3 +%d,%d @@\n", at-2, at-2, 3+len(unrelated))
	for _, l := range lines[at-3 : at] {
		b.WriteString(" " + l + "\n")
	}
	for _, l := range unrelated {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// idRun analyses the series over the 6.1 tree (base: the tree patches
// apply onto, nil for its checkout) and returns the reports.
func idRun(t *testing.T, dir string, base diffcheck.Tree, ss ...*series.Series) []*report.Report {
	t.Helper()
	rs, err := all.Rules(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	an, err := NewAnalysis(AnalysisOptions{Rules: rs, Tree: dir,
		IndexOptions: index.Options{CacheDir: filepath.Join(filepath.Dir(dir), "index-cache")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	an.SetBaseTree(base)
	reports, err := (&Pipeline{Stages: []Stage{an}}).RunAll(context.Background(), ss, 1)
	if err != nil {
		t.Fatal(err)
	}
	return reports
}

// findingIDs are the ids of the findings of r's patches numbered n, sorted,
// and their lines.
func findingIDs(r *report.Report, n int) (ids []string, lines []int) {
	for _, p := range r.Patches {
		if p.Number != n {
			continue
		}
		for _, f := range p.Findings {
			ids = append(ids, f.ID)
			lines = append(lines, f.Line)
		}
	}
	sort.Strings(ids)
	return ids, lines
}

// TestFindingIDsEval: on bug patches of the evaluation corpus, over the
// Linux 6.1 tree, every finding keeps its id when the tree moves under
// the patch (the same patch analysed on a tree with unrelated lines added
// above its functions: the findings' lines move, their ids do not), and
// in v2 of the series when the finding is unchanged (v2 adds a patch
// before it that moves those lines).
func TestFindingIDsEval(t *testing.T) {
	dir := testkernel.Dir(t)
	for _, name := range idCases {
		t.Run(strings.ReplaceAll(name, "/", "-"), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "eval", "bugs", name, "bug.patch"))
			if err != nil {
				t.Fatal(err)
			}
			diff := string(raw)
			path := firstFile(t, diff)
			src, err := os.ReadFile(filepath.Join(dir, path))
			if err != nil {
				t.Fatal(err)
			}
			at := insertAt(t, src)
			id := strings.ReplaceAll(name, "/", "-") + "@eval"
			v1 := &series.Series{ID: id, Version: 1, Total: 1, Patches: []*series.Patch{{Number: 1, Msg: msg(id, "[PATCH] "+name, diff, 1)}}}
			id2 := "v2." + id
			v2 := &series.Series{ID: id2, Version: 2, Total: 2, Patches: []*series.Patch{
				{Number: 1, Msg: msg(id2, "[PATCH v2 1/2] unrelated lines", shiftPatch(path, src, at), 1)},
				{Number: 2, Msg: msg("2."+id2, "[PATCH v2 2/2] "+name, diff, 1)},
			}}

			base := idRun(t, dir, nil, v1, v2)
			want, wantLines := findingIDs(base[0], 1)
			if len(want) == 0 {
				t.Fatalf("no findings on %s: the test follows nothing", name)
			}
			if err := check(base[0]); err != nil {
				t.Fatal(err)
			}
			if rp := base[0].Reproduce; rp == nil || rp.BaseFrom != report.BaseHead || len(rp.Base) != 40 || rp.Tree != filepath.Base(dir) ||
				rp.Command != "autosel-bot check PATCH-FILE --tree "+filepath.Base(dir) && rp.Command != "autosel-bot check "+id+" --tree "+filepath.Base(dir) {
				t.Errorf("reproduce %+v", rp)
			}
			rebased := idRun(t, dir, &shiftedTree{Tree: diffcheck.DirTree(dir), path: path, data: shifted(src, at)}, v1)
			for _, c := range []struct {
				what string
				r    *report.Report
				n    int
			}{
				{"rebased tree", rebased[0], 1},
				{"v2", base[1], 2},
			} {
				got, lines := findingIDs(c.r, c.n)
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("%s: ids %v, want %v", c.what, got, want)
				}
				if moved(base[0], c.r, c.n, path) == 0 {
					t.Errorf("%s: no finding in %s moved (lines %v): the test shows nothing", c.what, path, lines)
				}
			}
			if ids, _ := findingIDs(base[1], 1); len(ids) > 0 {
				t.Errorf("v2's patch 1 (unrelated lines) has findings %v", ids)
			}
			t.Logf("%d findings, ids %v; lines %v on the tree", len(want), want, wantLines)
		})
	}
}

// moved counts the findings in path of r's patches numbered n whose line
// differs from that of the finding with the same id in base's patch 1.
func moved(base, r *report.Report, n int, path string) int {
	was := map[string]int{}
	for _, f := range base.Patches[0].Findings {
		was[f.ID] = f.Line
	}
	k := 0
	for _, p := range r.Patches {
		for _, f := range p.Findings {
			if p.Number == n && f.File == path && f.Line != was[f.ID] {
				k++
			}
		}
	}
	return k
}

// check verifies that the report renders every id in every format.
func check(r *report.Report) error {
	var text, terse, js, sarif bytes.Buffer
	rs := []*report.Report{r}
	if err := report.WriteText(&text, rs); err != nil {
		return err
	}
	if err := report.WriteTerse(&terse, rs, report.TerseOptions{}); err != nil {
		return err
	}
	if err := report.WriteJSON(&js, rs); err != nil {
		return err
	}
	if err := report.WriteSARIF(&sarif, rs, report.SARIFTool{Name: "autosel-bot"}); err != nil {
		return err
	}
	for _, p := range r.Patches {
		for _, f := range p.Findings {
			for name, out := range map[string]string{"text": text.String(), "terse": terse.String(), "json": js.String(), "sarif": sarif.String()} {
				if !strings.Contains(out, f.ID) {
					return fmt.Errorf("%s output lacks finding id %s", name, f.ID)
				}
			}
		}
	}
	return nil
}
