package report

// StableReport is the stable-tree result of one patch (PatchReport.Stable),
// or the series summary (Report.Stable). Filled by package stable.
type StableReport struct {
	// Reason says why the patch is relevant, as the stable bot words it
	// (one or two lines, e.g. "This commit has been processed because it
	// contains a -stable tag.\nThe stable tag indicates that it's relevant
	// for the following trees: all"). Empty in the series summary.
	Reason string `json:"reason"`
	// Relevant names the trees the tag indicates ("all", "5.4+", "5.4").
	Relevant string `json:"relevant"`
	// Kind is what made the patch relevant: "stable-tag", "fixes" or
	// "autosel" (empty in the series summary).
	Kind string `json:"kind,omitempty"`
	// Fixes are the commits named by Fixes: tags, with subjects looked up
	// upstream when the tag lacks one.
	Fixes []Commit `json:"fixes,omitempty"`
	// Trees are the per-tree results in configured order (only the trees
	// the patch is relevant to).
	Trees []TreeResult `json:"trees"`
	// Upstream reports whether the patch is already in the upstream ref.
	Upstream bool `json:"upstream"`
	// UpstreamCommit is the upstream commit found (by patch-id or subject).
	UpstreamCommit *Commit `json:"upstream_commit,omitempty"`
	// UpstreamMatch is how UpstreamCommit was found: "upstream-commit" (the
	// backport's "[ Upstream commit <sha> ]" line), "patch-id" or "subject".
	UpstreamMatch string `json:"upstream_match,omitempty"`
}

// TreeResult is the outcome of one stable tree.
type TreeResult struct {
	// Name is the tree name, e.g. "v6.1.192".
	Name string `json:"name"`
	// Applied reports whether the patch applied.
	Applied bool `json:"applied"`
	// Present is the commit already in the tree that carries this patch
	// (same subject), when the tree has it already.
	Present *Commit `json:"present,omitempty"`
	// ApplyError is git's message when the patch did not apply.
	ApplyError string `json:"apply_error,omitempty"`
	// FailedHunks are "path:line" of the hunks that did not apply.
	FailedHunks []string `json:"failed_hunks,omitempty"`
	// Dependencies are possible prerequisite commits when it did not apply
	// (empty with DepsUnknown set when they could not be calculated).
	Dependencies []Commit `json:"dependencies,omitempty"`
	// DepsUnknown is set when the dependencies could not be calculated.
	DepsUnknown bool `json:"deps_unknown,omitempty"`
	// Prerequisites is the smallest set of Dependencies found on top of
	// which the patch applies (oldest first); empty when none works.
	Prerequisites []Commit `json:"prerequisites,omitempty"`
	// Backports are existing backports of the same commit (subject match)
	// in other configured trees.
	Backports []Backport `json:"backports,omitempty"`
	// Build is "ok", "failed", "refused" (the patch guard refused to build
	// it; BuildErrors say why) or "" (not built).
	Build string `json:"build,omitempty"`
	// BuildErrors are the trimmed compiler error lines.
	BuildErrors []string `json:"build_errors,omitempty"`
	// Error is an infrastructure problem with this tree (bad ref, git
	// failure); the other trees are still tested.
	Error string `json:"error,omitempty"`
}

// Backport is a commit carrying the same patch in another stable tree.
type Backport struct {
	// Tree is the configured tree name holding the backport.
	Tree string `json:"tree"`
	// Commit is the backport commit.
	Commit Commit `json:"commit"`
}

// Commit names one commit as "<12-char sha> ("<subject>")".
type Commit struct {
	// SHA is the full (or abbreviated, as given) commit id.
	SHA string `json:"sha"`
	// Subject is the commit's subject line.
	Subject string `json:"subject"`
}

// Short returns the first 12 characters of the commit id.
func (c Commit) Short() string {
	if len(c.SHA) > 12 {
		return c.SHA[:12]
	}
	return c.SHA
}

// String formats the commit as the kernel does: 12-char sha ("subject").
func (c Commit) String() string {
	if c.Subject == "" {
		return c.Short()
	}
	return c.Short() + ` ("` + c.Subject + `")`
}
