package reply

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/series"
)

// flagRE matches a long command-line flag ("--tree"), not C's "--x".
var flagRE = regexp.MustCompile(`(^|[\s(])--[a-z]{2,}`)

// TestPatchOnlyAdviceForAuthor: the replies to the seed series analysed
// without a tree (what the daemon does when no tree is configured) go to
// the patch authors, who never run the bot: no command-line flag, and each
// undecided finding says what the bot could not see and what to check.
func TestPatchOnlyAdviceForAuthor(t *testing.T) {
	files, err := filepath.Glob("../testdata/seeds/*.mbox")
	if err != nil || len(files) == 0 {
		t.Fatalf("no seeds: %v", err)
	}
	msgs, errs := mail.Load(context.Background(), files, nil)
	if len(errs) > 0 {
		t.Fatalf("load: %v", errs[0])
	}
	an, err := pipeline.NewAnalysis(pipeline.AnalysisOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &pipeline.Pipeline{Stages: []pipeline.Stage{an}}
	opts := sashaOptions()
	opts.Notes = true
	// What each undecided finding of the seeds must tell the author to
	// check, by function.
	want := map[string]string{
		"post_one_notification": "Please check each caller of post_one_notification()",
	}
	undecided := 0
	for _, s := range series.Assemble(msgs, series.Options{}) {
		r, err := p.Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		mails, err := Compose(r, s, opts)
		if err != nil {
			t.Fatal(err)
		}
		var bodies strings.Builder
		for _, m := range mails {
			bodies.WriteString(m.Body)
		}
		body := bodies.String()
		for _, l := range strings.Split(body, "\n") {
			if flagRE.MatchString(l) || strings.Contains(l, "run with") {
				t.Errorf("%s: reply to the author names a command-line flag: %q", s.ID, l)
			}
		}
		for _, pr := range r.Patches {
			for _, f := range pr.Findings {
				if !f.NeedsTree {
					continue
				}
				undecided++
				if !strings.Contains(body, "the bot had the patch but not the kernel tree") {
					t.Errorf("%s: %s(): the reply does not say what the bot could not see:\n%s", s.ID, f.Func, body)
				}
				if w, ok := want[f.Func]; ok && !strings.Contains(strings.Join(strings.Fields(body), " "), w) {
					t.Errorf("%s: %s(): the reply does not say %q:\n%s", s.ID, f.Func, w, body)
				}
			}
		}
	}
	if undecided == 0 {
		t.Fatal("no seed gave a finding undecided without a tree: the test checks nothing")
	}
}
