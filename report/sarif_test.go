package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/autosel-bot/autosel-bot/diffcheck"
)

// sarifSchema compiles the SARIF 2.1.0 schema (OASIS errata01, vendored in
// testdata) with a JSON Schema validator independent of the SARIF library.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestSARIFSchema: the SARIF log of the sample reports (and of none)
// validates against the SARIF 2.1.0 schema, and a log broken on purpose
// does not (the validator is not a no-op).
func TestSARIFSchema(t *testing.T) {
	sch := sarifSchema(t)
	tool := SARIFTool{Name: "autosel-bot", Version: "test", InformationURI: "https://example.org/autosel-bot"}
	for _, rs := range [][]*Report{sampleReports(), nil} {
		var buf bytes.Buffer
		if err := WriteSARIF(&buf, rs, tool); err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(doc); err != nil {
			t.Errorf("SARIF log does not validate: %v\n%s", err, buf.String())
		}
	}
	var buf bytes.Buffer
	WriteSARIF(&buf, sampleReports(), tool)
	broken := strings.Replace(buf.String(), `"level": "error"`, `"level": "fatal"`, 1)
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(broken))
	if sch.Validate(doc) == nil {
		t.Error("a result with level \"fatal\" validates")
	}
}

// TestSARIFContent: results, levels, locations and the call chain as a
// code flow.
func TestSARIFContent(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, sampleReports(), SARIFTool{Name: "autosel-bot", InformationURI: "https://example.org"}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID              string            `json:"ruleId"`
				Level               string            `json:"level"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
				Locations           []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				CodeFlows []struct {
					ThreadFlows []struct {
						Locations []struct {
							Location struct {
								Message struct {
									Text string `json:"text"`
								} `json:"message"`
								LogicalLocations []struct {
									Name string `json:"name"`
								} `json:"logicalLocations"`
							} `json:"location"`
						} `json:"locations"`
					} `json:"threadFlows"`
				} `json:"codeFlows"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != 2 || len(run.Results) != 2 {
		t.Fatalf("%d rules, %d results", len(run.Tool.Driver.Rules), len(run.Results))
	}
	r := run.Results[0]
	if r.RuleID != "sleep-in-atomic" || r.Level != "error" || r.Locations[0].PhysicalLocation.ArtifactLocation.URI != "kernel/watch_queue.c" ||
		r.Locations[0].PhysicalLocation.Region.StartLine != 129 {
		t.Errorf("first result %+v", r)
	}
	if len(r.CodeFlows) != 1 || len(r.CodeFlows[0].ThreadFlows[0].Locations) != 4 {
		t.Fatalf("code flows %+v", r.CodeFlows)
	}
	step := r.CodeFlows[0].ThreadFlows[0].Locations[3].Location
	if step.Message.Text != "mutex_lock_nested() may sleep" || step.LogicalLocations[0].Name != "__pipe_lock" {
		t.Errorf("last step %+v", step)
	}
	if run.Results[1].Level != "note" || len(run.Results[1].CodeFlows) != 0 {
		t.Errorf("second result %+v", run.Results[1])
	}
	// The finding id is the partial fingerprint.
	for i, res := range run.Results {
		want := FindingID(&sampleReports()[0].Patches[1].Findings[i])
		if got := res.PartialFingerprints[sarifFingerprint]; got != want {
			t.Errorf("result %d: partialFingerprints %v, want %s: %s", i, res.PartialFingerprints, sarifFingerprint, want)
		}
	}
}

// TestSARIFRecovered: a finding on a diff repaired from mail damage says
// so in its properties.
func TestSARIFRecovered(t *testing.T) {
	rs := sampleReports()
	rs[0].Patches[1].Notes = append(rs[0].Patches[1].Notes, diffcheck.RecoveredNote+": re-joined 1 line-wrapped line (diff line 9)")
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, rs, SARIFTool{Name: "autosel-bot", InformationURI: "https://example.org"}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `"recoveredDiff": "recovered a mail-damaged diff: re-joined 1 line-wrapped line (diff line 9)"`); n != 2 {
		t.Errorf("recoveredDiff on %d results, want 2", n)
	}
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err := sarifSchema(t).Validate(doc); err != nil {
		t.Error(err)
	}
}

// TestSARIFRules: the rule list is the tool's rules (from the rule
// families' and categories' docs), in their order, with descriptions and
// help; results name their rule as family/category; a rule the tool did
// not describe still gets an entry; the log validates.
func TestSARIFRules(t *testing.T) {
	rs := sampleReports()
	fs := rs[0].Patches[1].Findings
	fs[0].Rule, fs[0].Category = "sleep-in-atomic", "sleep-in-atomic"
	fs[1].Rule, fs[1].Category = "wakeup", "lost-wakeup"
	tool := SARIFTool{Name: "autosel-bot", InformationURI: "https://example.org", Rules: []SARIFRule{
		{ID: "sleep-in-atomic/sleep-in-atomic", Name: "sleep-in-atomic", Short: "a sleeping call in atomic context",
			Full: "Sleeping calls in atomic context.", Help: "a sleeping call in atomic context\n\nSleeping calls in atomic context."},
		{ID: "sleep-in-atomic/sleep-needs-tree", Name: "sleep-needs-tree", Short: "run with --tree"},
	}}
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, rs, tool); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID               string `json:"id"`
						Name             string `json:"name"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
						FullDescription struct {
							Text string `json:"text"`
						} `json:"fullDescription"`
						Help struct {
							Text string `json:"text"`
						} `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	want := []string{"sleep-in-atomic/sleep-in-atomic", "sleep-in-atomic/sleep-needs-tree", "wakeup/lost-wakeup"}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Fatalf("rules %q, want %q", ids, want)
	}
	r0 := run.Tool.Driver.Rules[0]
	if r0.Name != "sleep-in-atomic" || r0.ShortDescription.Text != "a sleeping call in atomic context" ||
		r0.FullDescription.Text != "Sleeping calls in atomic context." || !strings.Contains(r0.Help.Text, "\n\nSleeping calls") {
		t.Errorf("first rule %+v", r0)
	}
	if d := run.Tool.Driver.Rules[2].ShortDescription.Text; d != "autosel-bot rule wakeup/lost-wakeup." {
		t.Errorf("undescribed rule: %q", d)
	}
	if len(run.Results) != 2 || run.Results[0].RuleID != want[0] || run.Results[0].RuleIndex != 0 ||
		run.Results[1].RuleID != want[2] || run.Results[1].RuleIndex != 2 {
		t.Errorf("results %+v", run.Results)
	}
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err := sarifSchema(t).Validate(doc); err != nil {
		t.Error(err)
	}
}
