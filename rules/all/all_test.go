package all

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/rules"
)

func TestRulesBuild(t *testing.T) {
	rs, err := Rules(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(Constructors()) {
		t.Fatalf("%d rules from %d constructors", len(rs), len(Constructors()))
	}
	for _, r := range rs {
		if r.Name == "" || r.Doc == "" || r.Run == nil || len(r.Categories) == 0 {
			t.Errorf("rule %+v is incomplete", r)
		}
		for _, c := range r.Categories {
			if c.Doc == "" {
				t.Errorf("rule %s: category %s has no doc", r.Name, c.Name)
			}
		}
	}
}
