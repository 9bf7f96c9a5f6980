package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/autosel-bot/autosel-bot/diffcheck"
)

// SARIFTool describes the producer in a SARIF log.
type SARIFTool struct {
	// Name is the tool's name ("autosel-bot").
	Name string
	// Version is the tool's version (build info).
	Version string
	// InformationURI points at the tool's documentation.
	InformationURI string
}

// sarifFingerprint is the partialFingerprints key of a result: the
// finding's stable id (Finding.ID, see FindingID: rule, category,
// function, object, normalised evidence), so code-scanning services match
// it after lines move and across versions of a series.
const sarifFingerprint = "autoselBotFindingId/v1"

// SARIF builds a SARIF 2.1.0 log of reports: one run, one rule per rule
// name, one result per finding with its file and line, the function as a
// logical location, and the call chain of an interprocedural finding as a
// code flow (a thread flow whose locations are the chain's steps,
// outermost caller first). Series and patch identity go into each result's
// properties; the finding's id is its partial fingerprint and its
// "findingId" property (findings without an id get one, see AssignIDs).
// A suppressed finding is a result with a suppression (kind inSource for
// the tree's .autosel-ignore, external otherwise) whose justification
// names the suppression and its reason.
func SARIF(reports []*Report, tool SARIFTool) *sarif.Report {
	ensureIDs(reports)
	log := sarif.NewReport()
	run := sarif.NewRunWithInformationURI(tool.Name, tool.InformationURI)
	if tool.Version != "" {
		run.Tool.Driver.WithVersion(tool.Version)
	}
	var ruleNames []string
	seen := map[string]bool{}
	for _, r := range reports {
		for _, p := range r.Patches {
			for _, f := range p.Findings {
				if !seen[f.Rule] {
					seen[f.Rule] = true
					ruleNames = append(ruleNames, f.Rule)
				}
			}
			for _, sp := range p.Suppressed {
				if !seen[sp.Rule] {
					seen[sp.Rule] = true
					ruleNames = append(ruleNames, sp.Rule)
				}
			}
		}
	}
	sort.Strings(ruleNames)
	for _, name := range ruleNames {
		run.AddRule(name).WithName(name).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(ruleDescription(name)))
	}
	for _, r := range reports {
		for _, p := range r.Patches {
			for _, f := range p.Findings {
				sarifResult(run, r, p, f)
			}
			for _, sp := range p.Suppressed {
				res := sarifResult(run, r, p, sp.Finding)
				kind := "external"
				if sp.InTree {
					kind = "inSource"
				}
				just := sp.By
				if sp.Reason != "" {
					just += ": " + sp.Reason
				}
				res.AddSuppression(sarif.NewSuppression().WithKind(kind).WithStatus("accepted").WithJustification(just))
			}
		}
	}
	if inv := sarifInvocation(reports); inv != nil {
		run.AddInvocation(inv)
	}
	log.AddRun(run)
	return log
}

// sarifInvocation says, as notes of the tool's execution, which patches
// were already in the tree and analysed against it with the patch
// reversed; nil when none was.
func sarifInvocation(reports []*Report) *sarif.Invocation {
	var inv *sarif.Invocation
	for _, r := range reports {
		for _, p := range r.Patches {
			if p.AlreadyApplied == "" {
				continue
			}
			if inv == nil {
				inv = sarif.NewInvocation().WithExecutionSuccessful(true)
			}
			inv.AddToolExecutionNotification(sarif.NewNotification().WithLevel("note").
				WithMessage(sarif.NewTextMessage(fmt.Sprintf("patch <%s>: already applied: %s", p.MessageID, p.AlreadyApplied))))
		}
	}
	return inv
}

// ruleDescription is a rule's one-line description for the SARIF rule
// list.
func ruleDescription(name string) string {
	switch name {
	case "sleep-in-atomic":
		return "A call that may sleep is reachable while a spinlock, RCU read lock or other atomic context is held."
	case "lost-wakeup":
		return "A wake-up that reaches fewer waiters than the wait condition needs."
	case "waitqueue-split":
		return "A wait queue was split: every waiter and waker must move to the matching queue."
	}
	return "autosel-bot rule " + name + "."
}

func sarifLevel(s Severity) string {
	if s == SeverityRisk {
		return "error"
	}
	return "note"
}

// sarifResult adds the result of finding f to run and returns it.
func sarifResult(run *sarif.Run, r *Report, p PatchReport, f Finding) *sarif.Result {
	res := run.CreateResultForRule(f.Rule).
		WithLevel(sarifLevel(f.Severity)).
		WithMessage(sarif.NewTextMessage(f.Message))
	if f.File != "" {
		res.AddLocation(sarifLocation(f.File, f.Line, f.Func, ""))
	}
	if len(f.Chain) > 0 {
		tf := sarif.NewThreadFlow()
		for _, st := range f.Chain {
			tf.AddLocation(sarif.NewThreadFlowLocation().WithLocation(sarifLocation(st.File, st.Line, st.Func, st.What)))
		}
		res.AddCodeFlow(sarif.NewCodeFlow().
			WithMessage(sarif.NewTextMessage(fmt.Sprintf("call chain of %d steps, outermost caller first", len(f.Chain)))).
			AddThreadFlow(tf))
	}
	res.WithPartialFingerprints(map[string]string{sarifFingerprint: f.ID})
	props := sarif.NewPropertyBag().
		Add("findingId", f.ID).
		Add("seriesId", r.SeriesID).
		Add("messageId", p.MessageID).
		Add("patch", p.Number).
		Add("severity", string(f.Severity))
	if p.InReview {
		props.Add("inReview", true)
	}
	if p.AlreadyApplied != "" {
		props.Add("alreadyApplied", p.AlreadyApplied)
	}
	for _, n := range p.Notes {
		if strings.HasPrefix(n, diffcheck.RecoveredNote) {
			// The finding rests on a diff repaired from mail damage.
			props.Add("recoveredDiff", n)
		}
	}
	if f.Key != "" {
		props.Add("key", f.Key)
	}
	if f.Explanation != "" {
		props.Add("explanation", f.Explanation)
	}
	if len(f.Evidence) > 0 {
		props.Add("evidence", f.Evidence)
	}
	props.AddTag(f.Rule)
	res.WithProperties(props)
	return res
}

// sarifLocation is a location in file at line (no region when line is
// unknown) with fn as its logical location and msg as its message.
func sarifLocation(file string, line int, fn, msg string) *sarif.Location {
	pl := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(file))
	if line > 0 {
		pl.WithRegion(sarif.NewRegion().WithStartLine(line))
	}
	loc := sarif.NewLocationWithPhysicalLocation(pl)
	if fn != "" {
		loc.AddLogicalLocation(sarif.NewLogicalLocation().WithName(fn).WithKind("function"))
	}
	if msg != "" {
		loc.WithMessage(sarif.NewTextMessage(msg))
	}
	return loc
}

// WriteSARIF writes the SARIF log of reports (see SARIF), indented.
func WriteSARIF(w io.Writer, reports []*Report, tool SARIFTool) error {
	return SARIF(reports, tool).PrettyWrite(w)
}
