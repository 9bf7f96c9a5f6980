package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestSuppress: a suppressed finding leaves the findings with its id,
// and every format counts or lists it with what suppressed it.
func TestSuppress(t *testing.T) {
	rs := sampleReports()
	r := rs[0]
	AssignIDs(r)
	id := r.Patches[1].Findings[0].ID
	n := Suppress(r, func(f *Finding, p *PatchReport) (string, string, bool, bool) {
		return ".autosel-ignore:3", "callers drop the lock first", true, f.Severity == SeverityRisk
	})
	if n != 1 || r.CountSuppressed() != 1 || len(r.Patches[1].Findings) != 1 {
		t.Fatalf("suppressed %d, findings left %+v", n, r.Patches[1].Findings)
	}
	sp := r.Patches[1].Suppressed[0]
	if sp.ID != id || sp.By != ".autosel-ignore:3" || !sp.InTree {
		t.Errorf("suppressed %+v", sp)
	}
	if f, _ := r.FindByID(id); f == nil {
		t.Error("FindByID does not find a suppressed finding")
	}
	if r.Worst() != SeverityNote {
		t.Errorf("worst %s: a suppressed risk still counts", r.Worst())
	}

	var text bytes.Buffer
	if err := WriteText(&text, rs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"version 5, 2 patches, 1 proposed in review, 0 risks, 1 note, 1 suppressed\n",
		"  suppressed: " + id + " sleep-in-atomic: kernel/watch_queue.c:129 post_one_notification(): __pipe_lock() may sleep",
		"    by .autosel-ignore:3: callers drop the lock first\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "risk: sleep-in-atomic") {
		t.Error("text still reports the suppressed risk")
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, rs[:1]); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Patches[1].Suppressed; len(got) != 1 || got[0].ID != id || got[0].By != ".autosel-ignore:3" || got[0].Rule != "sleep-in-atomic" {
		t.Errorf("JSON round trip: %+v", got)
	}

	var md bytes.Buffer
	if err := WriteMarkdown(&md, r, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "(1 suppressed)") || !strings.Contains(md.String(), "- suppressed (.autosel-ignore:3: callers drop the lock first)") {
		t.Errorf("markdown:\n%s", md.String())
	}

	var sarif bytes.Buffer
	if err := WriteSARIF(&sarif, rs, SARIFTool{Name: "autosel-bot", InformationURI: "https://example.org"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sarif.String(), `"kind": "inSource"`) || !strings.Contains(sarif.String(), `"justification": ".autosel-ignore:3: callers drop the lock first"`) {
		t.Errorf("SARIF lacks the suppression:\n%s", sarif.String())
	}
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(sarif.Bytes()))
	if err := sarifSchema(t).Validate(doc); err != nil {
		t.Error(err)
	}
}
