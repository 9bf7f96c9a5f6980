package eval

import (
	"fmt"
	"time"

	"github.com/autosel-bot/autosel-bot/report"
)

// Level is what the analysis reported for a case's expected function.
type Level string

const (
	// LevelRisk: a risk finding of the family names the expected function.
	LevelRisk Level = "risk"
	// LevelNote: only a note-level finding of the family names it.
	LevelNote Level = "note"
	// LevelNone: no finding of the family names it.
	LevelNone Level = "none"
)

// Hit is one finding, reduced to what the report prints.
type Hit struct {
	// Family is the rule family that produced the finding.
	Family   string
	Severity report.Severity
	Func     string
	File     string
	Message  string
	// Line is the finding's line, Chain its call chain rendered one step
	// a line (Explain prints them).
	Line  int
	Chain []string
	// Category is the finding's sub-check ("" when the family has none).
	Category string
}

// Check is the hit's category, else its family.
func (h Hit) Check() string {
	if h.Category != "" {
		return h.Category
	}
	return h.Family
}

func (h Hit) String() string { return fmt.Sprintf("%s %s %s", h.Severity, h.Check(), h.Func) }

// CaseResult is the outcome of one bug case or near miss.
type CaseResult struct {
	Case *Case
	// Got is the level reached on the expected function (bug cases), or
	// the highest level of the family's findings (near misses).
	Got Level
	// Family holds the family's findings on bug.patch (or the near miss).
	Family []Hit
	// Other holds findings of other families on bug.patch.
	Other []Hit
	// FixRisk holds the risk findings on fix.patch (bug cases).
	FixRisk []Hit
	// Err says why the case could not be evaluated, or notes a patch that
	// did not apply to the tree.
	Err string
}

// OrdinaryResult is the outcome of one ordinary patch.
type OrdinaryResult struct {
	Ordinary *Ordinary
	// TreeRisk and PatchOnlyRisk are the risk findings on the patch, with
	// the tree and without it.
	TreeRisk, PatchOnlyRisk []Hit
	// TreeNote and PatchOnlyNote are the note-level findings (information).
	TreeNote, PatchOnlyNote []Hit
	Err                     string
}

// VariantResult is the outcome of one variant case.
type VariantResult struct {
	Variant *Variant
	// Got is the level reached on the expected function by bug.patch.
	Got Level
	// OK is the highest level of the family's findings on ok.patch
	// (LevelNone when there is no ok.patch).
	OK Level
	// Family and OKFamily hold the family's findings on each patch.
	Family, OKFamily []Hit
	Err              string
}

// Pass reports whether the variant's bug is caught at its expected
// severity and its correct counterpart, if any, gets no risk.
func (r *VariantResult) Pass() bool {
	caught := r.Got == LevelRisk || (r.Variant.Expect.Severity == "note" && r.Got == LevelNote)
	return caught && r.OK != LevelRisk
}

// Results are the evaluation of a corpus.
type Results struct {
	Corpus     *Corpus
	Bugs       []*CaseResult
	NearMisses []*CaseResult
	Ordinary   []*OrdinaryResult
	Variants   []*VariantResult
	// ShowTest prints the test split's per-case rows too (they are hidden
	// by default: whoever designs a rule reads only the test numbers).
	ShowTest bool
	// Elapsed is the wall time of Run.
	Elapsed time.Duration
}
