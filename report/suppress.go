package report

// Suppressed is a finding a suppression kept out of the findings: an
// --ignore flag, the check.ignore configuration, the tree's
// .autosel-ignore file or an "#autosel ignore" command by mail. It stays
// in the report, counted and listed, never dropped.
type Suppressed struct {
	Finding
	// By names the suppression: "--ignore sleep-in-atomic",
	// "check.ignore wakeup/lost-wakeup", ".autosel-ignore:12" or
	// "#autosel ignore by Name <addr>".
	By string `json:"suppressed_by"`
	// InTree is set when the suppression lives in the tree analysed (its
	// .autosel-ignore file), not in the bot's settings or its mail.
	InTree bool `json:"in_tree,omitempty"`
	// Reason is the reason the suppression gives, if any.
	Reason string `json:"reason,omitempty"`
}

// Suppression decides whether a finding of patch p is suppressed: by
// names the suppression (Suppressed.By), reason its reason, inTree a
// suppression from the tree.
type Suppression func(f *Finding, p *PatchReport) (by, reason string, inTree, ok bool)

// Suppress moves every finding of r that match suppresses into its patch's
// Suppressed list (in order) and returns how many it moved. Ids are
// assigned first (AssignIDs), so a finding keeps the id it has unsuppressed.
func Suppress(r *Report, match Suppression) int {
	AssignIDs(r)
	n := 0
	for i := range r.Patches {
		p := &r.Patches[i]
		kept := p.Findings[:0:0]
		for _, f := range p.Findings {
			by, reason, inTree, ok := match(&f, p)
			if !ok {
				kept = append(kept, f)
				continue
			}
			p.Suppressed = append(p.Suppressed, Suppressed{Finding: f, By: by, Reason: reason, InTree: inTree})
			n++
		}
		if len(kept) < len(p.Findings) {
			p.Findings = kept
		}
	}
	return n
}

// CountSuppressed returns the number of suppressed findings of r.
func (r *Report) CountSuppressed() int {
	n := 0
	for _, p := range r.Patches {
		n += len(p.Suppressed)
	}
	return n
}
