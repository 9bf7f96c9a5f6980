// Package report holds the one result model every stage writes into and the
// renderers (text, JSON, stable-bot e-mail) that read it.
package report

import "sort"

// Severity ranks a finding. Risk means the change is likely to cause a hang,
// crash or splat; Note means a changed pattern worth a reviewer's look.
type Severity string

const (
	// SeverityNote marks a changed pattern worth review.
	SeverityNote Severity = "note"
	// SeverityRisk marks a likely bug (hang, sleep in atomic context, ...).
	SeverityRisk Severity = "risk"
)

// Rank orders severities: note < risk. Unknown severities rank lowest.
func (s Severity) Rank() int {
	switch s {
	case SeverityRisk:
		return 2
	case SeverityNote:
		return 1
	}
	return 0
}

// Step is one hop of an interprocedural call chain, outermost caller first.
type Step struct {
	// Func is the function this step is in.
	Func string `json:"func"`
	// File is the repository-relative path of the file holding Func.
	File string `json:"file"`
	// Line is the 1-based line of the call (or of the context entry) in File.
	Line int `json:"line"`
	// What says what happens at this step, e.g. "rcu_read_lock()" or
	// "calls remove_watch_list()".
	What string `json:"what"`
}

// Finding is one result of a rule.
type Finding struct {
	// ID is the finding's stable id (FindingID): the same finding has the
	// same id after a rebase of the tree and in the next version of its
	// series. Commands by mail (#autosel ignore <id>) and suppressions
	// name findings by it.
	ID string `json:"id"`
	// Rule is the rule family's name, e.g. "sleep-in-atomic" or "wakeup".
	Rule string `json:"rule"`
	// Category is the family's sub-check that found it, e.g. "lost-wakeup"
	// or "wakeup-exclusive" (`autosel-bot rules` lists them).
	Category string `json:"category,omitempty"`
	// Severity is risk or note.
	Severity Severity `json:"severity"`
	// Patch is the index (1-based, as in "n/N") of the patch in its series
	// that the finding belongs to; 0 when it belongs to the series as a whole.
	Patch int `json:"patch,omitempty"`
	// File is the repository-relative path of the finding.
	File string `json:"file"`
	// Func is the C function the finding is in.
	Func string `json:"func"`
	// Line is the 1-based line number in the post-patch file (pre-patch when
	// the finding is about removed code).
	Line int `json:"line"`
	// Key identifies the object concerned, e.g. the wait queue
	// "pipe_inode_info.rd_wait" or the lock "pipe->mutex". Optional.
	Key string `json:"key,omitempty"`
	// Message is a one-line summary.
	Message string `json:"message"`
	// Explanation is a paragraph a maintainer can act on. Optional.
	Explanation string `json:"explanation,omitempty"`
	// Evidence holds the code lines that prove the finding, as in the patch
	// ("+\tmutex_lock(&pipe->mutex);") or the tree.
	Evidence []string `json:"evidence,omitempty"`
	// Old holds removed/previous code lines when the rule compares versions.
	Old []string `json:"old,omitempty"`
	// Chain is the call chain for interprocedural findings, outermost first.
	Chain []Step `json:"chain,omitempty"`
	// NeedsTree is set by patch-only analyses that could not decide without
	// a kernel tree (e.g. callers outside the patch).
	NeedsTree bool `json:"needs_tree,omitempty"`
	// Confirmed is set when the patched kernel printed a report that
	// matches the finding while the VM stage's tests ran.
	Confirmed *Confirmation `json:"confirmed,omitempty"`
}

// Confirmation is a kernel report from the VM stage that matches a
// finding: of a kind the finding's rule predicts, with one of its
// functions on the stack.
type Confirmation struct {
	// Test is the test that was running.
	Test string `json:"test"`
	// Kind is the report's kind (sleep-in-atomic, lockdep, hung-task, ...).
	Kind string `json:"kind"`
	// Function is the finding's function found on the report's stack.
	Function string `json:"function"`
	// Excerpt is the report's text.
	Excerpt string `json:"excerpt"`
}

// Check names what found f: its category, or its rule when the family has
// no categories.
func (f Finding) Check() string {
	if f.Category != "" {
		return f.Category
	}
	return f.Rule
}

// SortFindings orders findings: risks first, then by file, line and check
// (category, else rule). Rules report in any order; this is the one sort.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Severity.Rank() != b.Severity.Rank() {
			return a.Severity.Rank() > b.Severity.Rank()
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Check() < b.Check()
	})
}
