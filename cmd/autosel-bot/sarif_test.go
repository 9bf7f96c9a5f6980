package main

import (
	"encoding/json"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/all"
)

// TestCheckSARIFRules: check --format sarif lists every category of every
// rule family as a rule "family/category" with its doc and help (the rule
// list comes from the rules' docs, not a table), and each result names
// one of them.
func TestCheckSARIFRules(t *testing.T) {
	_, out, stderr := runCLI(t, "", "check", "--format", "sarif", "../../testdata/seeds/002-watch-queue-v5.mbox")
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
						Help struct {
							Text string `json:"text"`
						} `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("%v: %s%s", err, out, stderr)
	}
	rs, err := all.Rules(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, r := range rs {
		for _, c := range r.Categories {
			docs[r.Name+"/"+c.Name] = c.Doc
		}
	}
	got := map[string]bool{}
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		got[r.ID] = true
		if want, ok := docs[r.ID]; ok && (r.ShortDescription.Text != want || r.Help.Text == "") {
			t.Errorf("rule %s: description %q, help %q; want %q", r.ID, r.ShortDescription.Text, r.Help.Text, want)
		}
	}
	for id := range docs {
		if !got[id] {
			t.Errorf("rule %s missing from the SARIF rules", id)
		}
	}
	if len(log.Runs[0].Results) == 0 {
		t.Fatalf("no results: %s", stderr)
	}
	for _, res := range log.Runs[0].Results {
		if !got[res.RuleID] {
			t.Errorf("result with ruleId %q, not a listed rule", res.RuleID)
		}
	}
}
