// Package botcmd is what the bot does with what it knows of a series'
// conversation: the commands people give it by mail ("#autosel test",
// "ignore", "unignore", "explain", "help"; Handler answers them), and the
// history a new version of a series is reported against (History: the
// findings ignored by command are suppressed, the changes since the
// previous version are listed). The watch daemon decides which commands
// run (trusted senders, resolved series) and records their outcome.
package botcmd

import (
	"encoding/json"
	"fmt"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/store"
)

// History is what the store knows of a series before it is reported.
type History struct {
	// Lineage is the key of the series' first version analysed.
	Lineage string
	// PrevKey is the key of the previous version analysed ("" if none),
	// and PrevReport its report (JSON, as stored).
	PrevKey    string
	PrevReport []byte
	// Ignored are the findings of the lineage ignored by command.
	Ignored []store.Ignore
}

// IgnoredBy names an "#autosel ignore" suppression in reports.
func IgnoredBy(by string) string {
	if by == "" {
		return "#autosel ignore"
	}
	return "#autosel ignore by " + by
}

// Apply reports r against its history: the findings ignored by command
// are suppressed (report.Suppress: counted, not reported), and when the
// previous version was analysed, r.Changes says what changed since it.
// A nil h changes nothing.
func Apply(r *report.Report, h *History) error {
	if h == nil {
		return nil
	}
	if len(h.Ignored) > 0 {
		ignored := map[string]store.Ignore{}
		for _, ig := range h.Ignored {
			ignored[ig.FindingID] = ig
		}
		report.Suppress(r, func(f *report.Finding, _ *report.PatchReport) (string, string, bool, bool) {
			ig, ok := ignored[f.ID]
			return IgnoredBy(ig.By), ig.Reason, false, ok
		})
	}
	if len(h.PrevReport) == 0 {
		return nil
	}
	var prev report.Report
	if err := json.Unmarshal(h.PrevReport, &prev); err != nil {
		return fmt.Errorf("report of %s: %w", h.PrevKey, err)
	}
	r.Changes = report.Compare(&prev, r)
	return nil
}
