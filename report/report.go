package report

import "time"

// Report is everything the bot has to say about one series. It is the one
// model behind the text, JSON and e-mail renderers. JSON field names are
// stable; see doc comments for meaning.
type Report struct {
	// SeriesID is the series' ID (cover letter or first patch Message-ID).
	SeriesID string `json:"series_id"`
	// Title is the series title (without tags).
	Title string `json:"title"`
	// Subject is the raw subject of the cover letter or first patch.
	Subject string `json:"subject"`
	// Author is "Name <addr>" of the series author.
	Author string `json:"author"`
	// Version is the series version.
	Version int `json:"version"`
	// Total is N of n/N.
	Total int `json:"total"`
	// Date is the date of the series.
	Date time.Time `json:"date"`
	// Incomplete says why the series is incomplete, if it is.
	Incomplete string `json:"incomplete,omitempty"`
	// Patches are the per-patch results in series order.
	Patches []PatchReport `json:"patches"`
	// Notes are series-level remarks (e.g. "a tree is needed for callers").
	Notes []string `json:"notes,omitempty"`
	// Errors are input problems met while building the report.
	Errors []InputError `json:"errors,omitempty"`
	// Stable is the stable-tree result, nil when not run.
	Stable *StableReport `json:"stable,omitempty"`
	// VM is the VM regression-suite result, nil when not run.
	VM *VMReport `json:"vm,omitempty"`
	// Changes compares this version of the series with the previous one
	// analysed (findings by id, patches by patch-id); nil when there is
	// none.
	Changes *Changes `json:"changes,omitempty"`
	// Reproduce says how to get this report again (what was analysed, the
	// bot's version, the command); nil when the analysis did not run.
	Reproduce *Reproduce `json:"reproduce,omitempty"`
}

// PatchReport is the result for one patch of a series.
type PatchReport struct {
	// Number is n of n/N.
	Number int `json:"number"`
	// Subject is the patch's raw subject.
	Subject string `json:"subject"`
	// MessageID is the patch message's Message-ID.
	MessageID string `json:"message_id"`
	// File is the local file that held this patch alone (a git
	// format-patch file, a Maildir message), as given; empty for a patch
	// of an mbox of several, of stdin or of a downloaded thread.
	File string `json:"file,omitempty"`
	// PatchID identifies the change whatever its line numbers and white
	// space, like git patch-id (diffcheck.PatchID); empty without a diff.
	PatchID string `json:"patch_id,omitempty"`
	// InReview marks a diff proposed inline in a review reply.
	InReview bool `json:"in_review,omitempty"`
	// Files are the paths the patch touches.
	Files []string `json:"files"`
	// Funcs are the C functions the patch touches ("file:func").
	Funcs []string `json:"funcs"`
	// Findings are the rule findings for this patch.
	Findings []Finding `json:"findings"`
	// Suppressed are findings of this patch a suppression kept out of
	// Findings (with what suppressed them), counted in every summary.
	Suppressed []Suppressed `json:"suppressed,omitempty"`
	// Stable is this patch's stable-tree result (package stable), nil when
	// the stable stage did not run or the patch is not relevant to any tree.
	Stable *StableReport `json:"stable,omitempty"`
	// AlreadyApplied says the patch is already in the tree (it did not
	// apply but its reverse did, as git am checks): it was analysed
	// against the tree with the patch reversed. Every format says so.
	AlreadyApplied string `json:"already_applied,omitempty"`
	// Notes are per-patch remarks (e.g. apply errors against --tree).
	Notes []string `json:"notes,omitempty"`
	// Error is set when the patch could not be analysed (malformed diff).
	Error string `json:"error,omitempty"`
}

// InputError is a problem with one input message or file: it names where,
// and the rest of the input is still processed.
type InputError struct {
	// Source is the file name (and message index) or "stdin".
	Source string `json:"source"`
	// MessageID is the offending message's Message-ID, if known.
	MessageID string `json:"message_id,omitempty"`
	// Line is the 1-based line in the source, if known.
	Line int `json:"line,omitempty"`
	// Err is the error text.
	Err string `json:"error"`
}

// Worst returns the highest severity among all findings (empty if none).
func (r *Report) Worst() Severity {
	var w Severity
	for _, p := range r.Patches {
		for _, f := range p.Findings {
			if f.Severity.Rank() > w.Rank() {
				w = f.Severity
			}
		}
	}
	return w
}
