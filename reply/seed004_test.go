package reply

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/stable"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// seed004 loads seed 004's thread and returns the epoll patch (2/2).
func seed004(t *testing.T) *mail.Message {
	t.Helper()
	msgs, errs := mail.Load(context.Background(), []string{"../testdata/seeds/004-epoll-autoremove.mbox"}, nil)
	if len(errs) > 0 {
		t.Fatalf("load seed 004: %v", errs[0])
	}
	for _, m := range msgs {
		if m.Diff != "" && !m.Subject.Reply && !m.InlineReview {
			return m
		}
	}
	t.Fatal("no patch in seed 004")
	return nil
}

// preimage rebuilds a file that the patch applies to exactly: each hunk's
// context and removed lines at the hunk's old position, filler elsewhere.
func preimage(t *testing.T, diff string) (string, string) {
	t.Helper()
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil || len(files) != 1 {
		t.Fatalf("parse diff: %v (%d files)", err, len(files))
	}
	var lines []string
	for _, fr := range files[0].TextFragments {
		for int64(len(lines)) < fr.OldPosition-1 {
			lines = append(lines, fmt.Sprintf("/* line %d */", len(lines)+1))
		}
		for _, l := range fr.Lines {
			if l.Old() {
				lines = append(lines, strings.TrimSuffix(l.Line, "\n"))
			}
		}
	}
	lines = append(lines, "/* end */")
	return files[0].OldName, strings.Join(lines, "\n") + "\n"
}

// epollWorld makes a mainline whose fs/eventpoll.c is the patch's
// pre-image after two commits, and stable trees named like seed 004's: the
// two newest have both commits, v4.19.118 lacks the second, the three
// oldest lack both.
func epollWorld(t *testing.T, patch *mail.Message) (stable.Options, []string) {
	t.Helper()
	path, head := preimage(t, patch.Diff)
	r := stabletest.NewRepo(t)
	v1 := strings.Replace(head, "\tbool waiter = false;\n", "", 1)
	v0 := strings.Replace(v1, "send_events:\n", "check_events:\n", 1)
	if v0 == v1 || v1 == head {
		t.Fatal("pre-image lacks the lines the history changes")
	}
	r.Write(path, v0)
	c0 := r.Commit("epoll: the old ep_poll()")
	r.Write(path, v1)
	c1 := r.Commit("fs/epoll: rename check_events label to send_events")
	r.Write(path, head)
	c2 := r.Commit("fs/epoll: deal with wait_queue only once")
	build := "! grep -n '^<<<<<<<' " + path
	trees := []stable.TreeOptions{
		{Name: "v5.6.7", Ref: c2}, {Name: "v5.4.35", Ref: c2}, {Name: "v4.19.118", Ref: c1},
		{Name: "v4.14.177", Ref: c0}, {Name: "v4.9.220", Ref: c0}, {Name: "v4.4.220", Ref: c0},
	}
	for i := range trees {
		trees[i].Build = build
	}
	return stable.Options{Enabled: true, Repo: r.Dir, Upstream: stable.UpstreamOptions{Ref: "master"},
		Trees: trees, WorkDir: t.TempDir()}, []string{c0, c1, c2}
}

func sashaOptions() Options {
	o := DefaultOptions()
	o.Greeting = "Hi"
	o.Signature = "Thanks\nSasha"
	o.From = "autosel-bot <autosel-bot@example.org>"
	o.Version = "test"
	o.Now = func() time.Time { return time.Date(2020, 5, 1, 2, 55, 29, 0, time.UTC) }
	return o
}

var depLineRE = regexp.MustCompile(`^    [0-9a-f]{12} \(".*"\)$`)

// structure reduces a stable-bot mail to its shape: the stable bot's part
// (up to the question) and the signature, with each run of dependency
// lines collapsed to one "    <dependency>" line.
func structure(body string) string {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	var out []string
	for _, l := range lines {
		if depLineRE.MatchString(l) {
			l = "    <dependency>"
			if len(out) > 0 && out[len(out)-1] == l {
				continue
			}
		}
		out = append(out, l)
		if l == proceed {
			break
		}
	}
	if n := len(lines); n >= 3 {
		out = append(out, "...", lines[n-3], lines[n-2], lines[n-1])
	}
	return strings.Join(out, "\n")
}

// TestSeed004Structure runs the stable stage over trees named like seed
// 004's and checks that the rendered reply has the real stable bot reply's
// lines in the same order.
func TestSeed004Structure(t *testing.T) {
	patch := seed004(t)
	opts, commits := epollWorld(t, patch)
	s := stabletest.Series(patch)
	r := &report.Report{SeriesID: s.ID, Total: 1, Patches: []report.PatchReport{{Number: 1, Subject: patch.Subject.Raw, MessageID: patch.MessageID}}}
	if err := stable.NewStage(opts, nil).Run(context.Background(), s, r); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Render(&b, r, s, sashaOptions()); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/seed004-stable-bot.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := structure(b.String()), structure(string(want)); got != want {
		t.Errorf("structure differs from the real stable bot reply:\n--- got\n%s\n--- want\n%s", got, want)
	}
	// The dependencies themselves: the commits each tree lacks.
	tr := r.Patches[0].Stable.Trees
	if deps := tr[2].Dependencies; len(deps) != 1 || deps[0].SHA != commits[2] {
		t.Errorf("v4.19.118 dependencies %v, want [%.12s]", deps, commits[2])
	}
	if deps := tr[3].Dependencies; len(deps) != 2 || deps[0].SHA != commits[1] || deps[1].SHA != commits[2] {
		t.Errorf("v4.14.177 dependencies %v, want [%.12s %.12s]", deps, commits[1], commits[2])
	}
	golden(t, "seed004.golden", b.String())
}

// TestSeed004Headers checks the reply's headers against the original mail.
func TestSeed004Headers(t *testing.T) {
	patch := seed004(t)
	s := &series.Series{ID: patch.MessageID, Version: 1, Total: 2, Patches: []*series.Patch{{Msg: patch, Number: 2}}}
	r := &report.Report{SeriesID: s.ID, Total: 2, Patches: []report.PatchReport{{Number: 2, Subject: patch.Subject.Raw, MessageID: patch.MessageID,
		Stable: &report.StableReport{Reason: "r", Relevant: "all", Trees: []report.TreeResult{{Name: "v5.6.7", Applied: true, Build: "ok"}}}}}}
	mails, err := Compose(r, s, sashaOptions())
	if err != nil || len(mails) != 1 {
		t.Fatalf("compose: %v, %d mails", err, len(mails))
	}
	golden(t, "seed004-headers.golden", headerPart(mails[0].String()))
}

func headerPart(s string) string {
	if i := strings.Index(s, "\n\n"); i >= 0 {
		return s[:i+1]
	}
	return s
}
