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
	// Rules describe the rules the tool runs, in report order (the
	// caller derives them from each rule family's and category's doc, see
	// pipeline.SARIFRules): every one goes into the log's rule list.
	Rules []SARIFRule
}

// SARIFRule is one rule of a SARIF log: a rule family's category, or a
// family without categories.
type SARIFRule struct {
	// ID is the ruleId of its results: "family/category" (SARIFRuleID),
	// or "family" for a family without categories.
	ID string
	// Name is the category's (or family's) name.
	Name string
	// Short is the one-paragraph description (the category's doc); Full
	// the family's doc; Help the text shown beside a result (both).
	Short, Full, Help string
}

// SARIFRuleID is the ruleId of finding f's results: its rule family and
// its category ("wakeup/lost-wakeup"), or the family alone when it has no
// category.
func SARIFRuleID(f *Finding) string {
	if f.Category == "" {
		return f.Rule
	}
	return f.Rule + "/" + f.Category
}

// sarifFingerprint is the partialFingerprints key of a result: the
// finding's stable id (Finding.ID, see FindingID: rule, category,
// function, object, normalised evidence), so code-scanning services match
// it after lines move and across versions of a series.
const sarifFingerprint = "autoselBotFindingId/v1"

// SARIF builds a SARIF 2.1.0 log of reports: one run, the tool's rules
// (one per family and category, ruleId "family/category", with their docs
// as descriptions and help), one result per finding with its file and line, the function as a
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
	sarifRules(run, reports, tool.Rules)
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

// sarifRules adds the rule list: every rule of the tool, then any rule
// of a finding the tool did not describe (sorted), with a generic
// description.
func sarifRules(run *sarif.Run, reports []*Report, rules []SARIFRule) {
	known := map[string]bool{}
	for _, r := range rules {
		known[r.ID] = true
		d := run.AddRule(r.ID).WithName(r.Name).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(r.Short))
		if r.Full != "" {
			d.WithFullDescription(sarif.NewMultiformatMessageString().WithText(r.Full))
		}
		if r.Help != "" {
			d.WithHelp(sarif.NewMultiformatMessageString().WithText(r.Help))
		}
	}
	var extra []string
	add := func(f *Finding) {
		if id := SARIFRuleID(f); !known[id] {
			known[id] = true
			extra = append(extra, id)
		}
	}
	for _, r := range reports {
		for _, p := range r.Patches {
			for i := range p.Findings {
				add(&p.Findings[i])
			}
			for i := range p.Suppressed {
				add(&p.Suppressed[i].Finding)
			}
		}
	}
	sort.Strings(extra)
	for _, id := range extra {
		run.AddRule(id).WithName(id).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText("autosel-bot rule " + id + "."))
	}
}

func sarifLevel(s Severity) string {
	if s == SeverityRisk {
		return "error"
	}
	return "note"
}

// sarifResult adds the result of finding f to run and returns it.
func sarifResult(run *sarif.Run, r *Report, p PatchReport, f Finding) *sarif.Result {
	res := run.CreateResultForRule(SARIFRuleID(&f)).
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
	if f.Category != "" && f.Category != f.Rule {
		props.AddTag(f.Category)
	}
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
