package rules

import (
	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
)

// Pass is the input of one Rule run over one patch.
type Pass struct {
	// Change is the patch's ChangeSet.
	Change *diffcheck.ChangeSet
	// Index is the post-patch tree index, nil in patch-only mode.
	Index *index.Index
	// Options are the shared rule options.
	Options Options
	// Patch is the 1-based number of the patch in its series (for findings).
	Patch int
	// Notes collects remarks for the report, such as "callers of X need a
	// tree"; rules append to it.
	Notes []string
}

// Note appends a remark to the pass's report notes.
func (p *Pass) Note(s string) { p.Notes = append(p.Notes, s) }
