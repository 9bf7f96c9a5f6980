package report

// StableReport is the stable-tree part of a report (filled by package stable).
type StableReport struct {
	// Reason says why the patch is relevant ("contains a -stable tag", ...).
	Reason string `json:"reason"`
	// Relevant names the trees the tag indicates ("all", "5.4+").
	Relevant string `json:"relevant"`
	// Trees are the per-tree results in configured order.
	Trees []TreeResult `json:"trees"`
	// Upstream reports whether the patch is already in the upstream ref.
	Upstream bool `json:"upstream"`
}

// TreeResult is the outcome of one stable tree.
type TreeResult struct {
	// Name is the tree name, e.g. "v6.1.192".
	Name string `json:"name"`
	// Applied reports whether the patch applied.
	Applied bool `json:"applied"`
	// Dependencies are possible prerequisite commits when it did not apply.
	Dependencies []Commit `json:"dependencies,omitempty"`
	// Build is "ok", "failed" or "" (not built).
	Build string `json:"build,omitempty"`
	// BuildErrors are the trimmed compiler error lines.
	BuildErrors []string `json:"build_errors,omitempty"`
}

// Commit names one commit as "<12-char sha> ("<subject>")".
type Commit struct {
	SHA     string `json:"sha"`
	Subject string `json:"subject"`
}
