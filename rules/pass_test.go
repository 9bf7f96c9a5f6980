package rules

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

const passPatch = `diff --git a/a.c b/a.c
--- a/a.c
+++ b/a.c
@@ -1,5 +1,6 @@
 static int f(void)
 {
 	spin_lock(&l);
+	msleep(1);
 	spin_unlock(&l);
 	return 0;
`

const passTree = "static int f(void)\n{\n\tspin_lock(&l);\n\tspin_unlock(&l);\n\treturn 0;\n}\n\nstatic void g(void)\n{\n\tf();\n}\n"

func TestPassReport(t *testing.T) {
	cs, err := diffcheck.Parse(passPatch)
	if err != nil {
		t.Fatal(err)
	}
	chain := []report.Step{{Func: "f", File: "a.c", Line: 3, What: "spin_lock(&l)"}, {Func: "f", File: "a.c", Line: 4, What: "msleep(1)"}}
	r := &Rule{Name: "fam", Doc: "d", Run: func(p *Pass) error {
		p.Report(report.Finding{Category: "c1", Severity: report.SeverityRisk, Func: "f", Chain: chain})
		p.Report(report.Finding{Category: "c1", Severity: report.SeverityRisk, Func: "g", Chain: chain}) // same chain: dropped
		p.Report(report.Finding{Category: "c2", Severity: report.SeverityNote, Func: "f", Chain: chain})
		p.Report(report.Finding{Category: "c2", Severity: report.SeverityNote, Func: "f", Evidence: []string{"mine"}})
		p.Report(report.Finding{Category: "c2", Severity: report.SeverityNote, Func: "f", Evidence: []string{"mine"}}) // no chain: kept
		p.Note("n")
		return nil
	}}
	p := NewPass(cs, nil, Options{}, 3)
	fs, err := p.Run(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 4 {
		t.Fatalf("%d findings, want 4: %+v", len(fs), fs)
	}
	for _, f := range fs {
		if f.Rule != "fam" || f.Patch != 3 {
			t.Errorf("not stamped: %+v", f)
		}
	}
	want := "a.c:3: spin_lock(&l);|a.c:4: msleep(1);"
	if got := strings.Join(fs[0].Evidence, "|"); got != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
	if got := strings.Join(fs[2].Evidence, "|"); got != "mine" {
		t.Errorf("rule's evidence replaced: %q", got)
	}
	if len(p.Notes) != 1 || len(p.Findings()) != 0 {
		t.Errorf("notes %q, findings left %d", p.Notes, len(p.Findings()))
	}
	// A second run starts afresh: the same chain is reported again.
	if fs, _ := p.Run(r); len(fs) != 4 {
		t.Errorf("second run: %d findings", len(fs))
	}
}

func TestNewPassTree(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.c"), []byte(passTree), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := index.Open(context.Background(), dir, index.Options{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := diffcheck.Parse(passPatch)
	if err != nil {
		t.Fatal(err)
	}
	if err := diffcheck.ApplyTree(cs, diffcheck.DirTree(dir)); err != nil {
		t.Fatal(err)
	}
	p := NewPass(cs, base, Options{}, 1)
	if p.Index == base {
		t.Fatal("index not overlaid with the patched files")
	}
	if got := p.Line("a.c", 4); got != "msleep(1);" {
		t.Errorf("line 4 = %q (from the patch)", got)
	}
	if got := p.Line("a.c", 11); got != "f();" {
		t.Errorf("line 11 = %q (from the patched tree)", got)
	}
	if got := p.Line("a.c", 99); got != "" {
		t.Errorf("line 99 = %q", got)
	}
	if got := NewPass(cs, nil, Options{}, 1).Line("a.c", 11); got != "" {
		t.Errorf("patch-only pass read %q outside the patch", got)
	}
}
