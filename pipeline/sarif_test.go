package pipeline

import (
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
)

// TestSARIFRules: one SARIF rule per category (family/category, the docs
// as descriptions and help), one per family without categories.
func TestSARIFRules(t *testing.T) {
	rs := []*rules.Rule{
		{Name: "wakeup", Doc: "Wake-ups.", Categories: []rules.Category{
			{Name: "lost-wakeup", Doc: "a lost wake-up"}, {Name: "wakeup-split", Doc: "a split queue"}}},
		{Name: "plain", Doc: "One check."},
	}
	want := []report.SARIFRule{
		{ID: "wakeup/lost-wakeup", Name: "lost-wakeup", Short: "a lost wake-up", Full: "Wake-ups.", Help: "a lost wake-up\n\nwakeup: Wake-ups."},
		{ID: "wakeup/wakeup-split", Name: "wakeup-split", Short: "a split queue", Full: "Wake-ups.", Help: "a split queue\n\nwakeup: Wake-ups."},
		{ID: "plain", Name: "plain", Short: "One check.", Help: "One check."},
	}
	if got := SARIFRules(rs); !reflect.DeepEqual(got, want) {
		t.Errorf("SARIFRules:\n got %+v\nwant %+v", got, want)
	}
}
