package reply

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/internal/textfmt"
	"github.com/autosel-bot/autosel-bot/report"
)

// writeHead writes the greeting and the stable bot's first line.
func writeHead(b *strings.Builder, opts Options) {
	if g := strings.TrimSpace(opts.Greeting); g != "" {
		b.WriteString(cleanLine(g) + "\n\n")
	}
	b.WriteString(automated + "\n\n")
}

// reproduceTitle starts the section on how to get the result again.
const reproduceTitle = "How to reproduce:"

// writeTail writes how to reproduce the report (and, after a risk, the
// trailers of a fix), the thread link and the signature ("-- "
// separator). msgID is the mail answered, replyID the reply's own.
func writeTail(b *strings.Builder, r *report.Report, msgID, replyID string, risk, findings bool, opts Options) {
	if findings && opts.Commands {
		sep(b)
		b.WriteString("Reply with \"#autosel ignore <finding id> [reason]\" at the start of a line\nto stop reporting a finding for this series and its next versions;\n\"#autosel help\" lists the other commands.\n")
	}
	if r != nil && r.Reproduce != nil {
		section(b, reproduceTitle)
		// Not wrapped: the command is copied and pasted.
		for _, l := range r.Reproduce.Lines() {
			b.WriteString("    " + cleanLine(l) + "\n")
		}
	}
	if risk {
		writeTrailers(b, replyID, opts)
	}
	if opts.LoreURL != "" && publicID(msgID) {
		b.WriteString("\nLink: " + opts.LoreURL + cleanLine(strings.Trim(msgID, "<>")) + "\n")
	}
	if sig := strings.TrimRight(opts.Signature, "\n"); sig != "" {
		b.WriteString("\n-- \n" + clean(sig) + "\n")
	}
}

// publicID reports whether Message-ID id can be found in a public
// archive: not empty and not one the bot made up for a message that had
// none (a local file, a commit: their domains are in .invalid, see
// mail.SyntheticIDDomain and gitsrc.IDDomain), whose Link: would lead
// nowhere.
func publicID(id string) bool {
	id = strings.Trim(strings.TrimSpace(id), "<>")
	if id == "" {
		return false
	}
	_, domain, _ := strings.Cut(id, "@")
	return !undeliverable("x@" + strings.ToLower(domain))
}

// writeTrailers writes the tags the author of a fix may add, as the kernel
// test robot does: Reported-by the bot, Closes this reply.
func writeTrailers(b *strings.Builder, replyID string, opts Options) {
	sep(b)
	b.WriteString("If you fix the issue in a separate patch (not just a new version of\nthis one), kindly add these tags:\n")
	from := opts.fromAddr()
	who := "<" + from.Address + ">"
	if from.Name != "" {
		who = from.Name + " " + who
	}
	b.WriteString("| Reported-by: " + cleanLine(who) + "\n")
	if opts.LoreURL != "" && publicID(replyID) {
		b.WriteString("| Closes: " + opts.LoreURL + cleanLine(strings.Trim(replyID, "<>")) + "/\n")
	}
}

// hasFindings reports whether a finding of ps is mailed in full.
func hasFindings(ps []*report.PatchReport, opts Options) bool {
	for _, p := range ps {
		if len(selectFindings(p.Findings, opts)) > 0 {
			return true
		}
	}
	return false
}

// hasRisk reports whether a risk of ps is mailed in full.
func hasRisk(ps []*report.PatchReport, opts Options) bool {
	for _, p := range ps {
		for _, f := range selectFindings(p.Findings, opts) {
			if f.Severity == report.SeverityRisk {
				return true
			}
		}
	}
	return false
}

// writeChanges writes what changed since the previous version of the
// series: the findings fixed, new and unchanged (by id; unchanged ones are
// not repeated in full), and the patches as git range-diff pairs them.
func writeChanges(b *strings.Builder, c *report.Changes) {
	if c == nil {
		return
	}
	section(b, fmt.Sprintf("Changes since v%d <%s>:", c.PreviousVersion, cleanLine(c.PreviousID)))
	b.WriteString("    " + c.Summary() + " (findings matched by id)\n")
	item := func(what string, f report.FindingRef, tail string) {
		for i, l := range textfmt.Wrap(what+" "+cleanLine(f.Line())+tail, 72) {
			if i > 0 {
				l = "    " + l
			}
			b.WriteString("    " + l + "\n")
		}
	}
	for _, f := range c.Fixed {
		item("fixed:", f, "")
	}
	for _, f := range c.New {
		item("new:", f, " (below)")
	}
	for _, f := range c.Unchanged {
		item("unchanged:", f, fmt.Sprintf(" (not repeated; see the reply to v%d)", c.PreviousVersion))
	}
	if lines := c.RangeDiffLines(); len(lines) > 0 {
		b.WriteString("    Patches (range-diff by patch-id):\n")
		for _, l := range lines {
			b.WriteString("        " + cleanLine(l) + "\n")
		}
	}
}

// section starts one of this bot's own sections after the previous text.
func section(b *strings.Builder, title string) {
	sep(b)
	b.WriteString(title + "\n")
}

// hasStable reports whether a patch has stable results to report.
func hasStable(p *report.PatchReport) bool {
	return p.Stable != nil && len(p.Stable.Trees) > 0
}

// patchBody is the reply to one patch: the stable bot's mail when the
// patch was tested on stable trees, then this bot's sections.
func patchBody(r *report.Report, p *report.PatchReport, withVM bool, msgID, replyID string, opts Options) string {
	var b strings.Builder
	writeHead(&b, opts)
	if hasStable(p) {
		writeStableTrees(&b, p.Stable)
		writeStableEnd(&b, p.Stable.Upstream, false)
	}
	if withVM {
		writeChanges(&b, r.Changes)
	}
	writeOwn(&b, r, []*report.PatchReport{p}, withVM, true, opts)
	one := []*report.PatchReport{p}
	writeTail(&b, r, msgID, replyID, hasRisk(one, opts), hasFindings(one, opts), opts)
	return b.String()
}

// writeOwn writes this bot's sections: backport notes, findings (in full,
// or counted per patch when full is false) and VM results.
func writeOwn(b *strings.Builder, r *report.Report, ps []*report.PatchReport, withVM, full bool, opts Options) {
	multi := len(ps) > 1
	var notes []string
	for _, p := range ps {
		if !hasStable(p) {
			continue
		}
		prefix := ""
		if multi {
			prefix = fmt.Sprintf("%d/%d ", p.Number, max(r.Total, len(ps)))
		}
		notes = append(notes, backportNotes(p.Stable, prefix)...)
	}
	for _, p := range ps {
		for _, n := range p.Notes {
			if strings.HasPrefix(n, "stable:") {
				notes = append(notes, cleanLine(n))
			}
		}
	}
	if len(notes) > 0 {
		section(b, "Backport notes:")
		for _, n := range notes {
			b.WriteString("    " + n + "\n")
		}
	}
	writeAlreadyApplied(b, ps)
	var counts []string
	for _, p := range ps {
		fs := selectFindings(p.Findings, opts)
		if len(fs) == 0 && len(p.Suppressed) == 0 {
			continue
		}
		if !full {
			c := countFindings(fs)
			if len(p.Suppressed) > 0 {
				c = strings.TrimPrefix(c+fmt.Sprintf(", %d suppressed", len(p.Suppressed)), ", ")
			}
			counts = append(counts, fmt.Sprintf("    %s: %s", patchName(p), c))
			continue
		}
		title := "Lock and wakeup analysis:"
		if multi || p.InReview {
			title = fmt.Sprintf("Lock and wakeup analysis of %s:", patchName(p))
		}
		section(b, title)
		for _, n := range p.Notes {
			if strings.HasPrefix(n, diffcheck.RecoveredNote) {
				// Findings on a repaired diff rest on the repair.
				for i, l := range textfmt.Wrap("Note: "+cleanLine(n), 72) {
					if i > 0 {
						l = "  " + l
					}
					b.WriteString("    " + l + "\n")
				}
			}
		}
		writeFindings(b, fs, opts.FindingURL)
		writeSuppressed(b, p, len(fs) > 0)
	}
	if len(counts) > 0 {
		section(b, "Lock and wakeup analysis (details in the reply to each patch):")
		for _, c := range counts {
			b.WriteString(c + "\n")
		}
	}
	if withVM && r.VM != nil {
		sep(b)
		writeVM(b, r.VM)
	}
}

// sep makes the text so far end with a blank line.
func sep(b *strings.Builder) {
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n\n") {
		b.WriteString("\n")
	}
}

// patchName is "[PATCH n/N] title" or, for a diff from a review reply,
// "the diff proposed in <msgid>".
func patchName(p *report.PatchReport) string {
	if p.InReview {
		return "the diff proposed in review <" + cleanLine(strings.Trim(p.MessageID, "<>")) + ">"
	}
	return cleanLine(p.Subject)
}

// seriesBody is the reply to a cover letter (or to the first patch of a
// series without one): the patch x tree table, the stable bot's block for
// each tested patch, and this bot's sections (findings counted per patch
// when per-patch replies carry them, in full otherwise).
func seriesBody(r *report.Report, ps []*report.PatchReport, fullFindings map[*report.PatchReport]bool, msgID, replyID string, opts Options) string {
	var b strings.Builder
	writeHead(&b, opts)
	var tested []*report.PatchReport
	upstream := true
	for _, p := range ps {
		if hasStable(p) && !p.InReview {
			tested = append(tested, p)
			upstream = upstream && p.Stable.Upstream
		}
	}
	if len(tested) > 0 {
		writeTable(&b, r, ps)
		for i, p := range tested {
			if i > 0 {
				sep(&b)
			}
			b.WriteString(patchName(p) + ":\n")
			writeStableTrees(&b, p.Stable)
		}
		writeStableEnd(&b, upstream, len(tested) > 1)
	}
	writeChanges(&b, r.Changes)
	var full, counted []*report.PatchReport
	for _, p := range ps {
		if fullFindings[p] {
			full = append(full, p)
		} else {
			counted = append(counted, p)
		}
	}
	// Backport notes and full findings for patches that get no reply of
	// their own, then counts for those that do.
	writeOwn(&b, r, full, false, true, opts)
	writeOwn(&b, r, notesOnly(counted), false, true, opts)
	writeOwn(&b, r, findingsOnly(counted), false, false, opts)
	writeOwn(&b, r, nil, true, true, opts)
	writeTail(&b, r, msgID, replyID, hasRisk(full, opts), hasFindings(full, opts), opts)
	return b.String()
}

func notesOnly(ps []*report.PatchReport) []*report.PatchReport {
	var out []*report.PatchReport
	for _, p := range ps {
		q := *p
		q.Findings = nil
		out = append(out, &q)
	}
	return out
}

func findingsOnly(ps []*report.PatchReport) []*report.PatchReport {
	var out []*report.PatchReport
	for _, p := range ps {
		q := *p
		q.Stable, q.Notes = nil, nil
		out = append(out, &q)
	}
	return out
}

// Table cells.
const (
	cellOK       = "OK"
	cellApplied  = "APPLIED"
	cellBuild    = "BUILD-FAIL"
	cellRefused  = "REFUSED"
	cellFail     = "FAIL"
	cellPrereq   = "FAIL+DEPS"
	cellPresent  = "PRESENT"
	cellError    = "ERROR"
	cellNotTried = "-"
)

// writeTable writes the patch x tree summary of a series.
func writeTable(b *strings.Builder, r *report.Report, ps []*report.PatchReport) {
	var trees []string
	seen := map[string]bool{}
	for _, p := range ps {
		if !hasStable(p) {
			continue
		}
		for _, t := range p.Stable.Trees {
			if !seen[t.Name] {
				seen[t.Name] = true
				trees = append(trees, cleanLine(t.Name))
			}
		}
	}
	rows := [][]string{append([]string{""}, trees...)}
	refused := false
	for _, p := range ps {
		if p.InReview {
			continue
		}
		row := []string{fmt.Sprintf("%d/%d", p.Number, max(r.Total, len(ps)))}
		for _, name := range trees {
			c := cell(p, name)
			refused = refused || c == cellRefused
			row = append(row, c)
		}
		rows = append(rows, row)
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len(c))
		}
	}
	b.WriteString("Stable trees (patch x tree):\n\n")
	for _, row := range rows {
		var line strings.Builder
		line.WriteString("    ")
		for i, c := range row {
			line.WriteString(c)
			if i < len(row)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-len(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	b.WriteString("\n    " + cellOK + ": applied and built; " + cellApplied + ": applied, not built;\n    " +
		cellBuild + ": applied, build failed; " + cellFail + ": failed to apply;\n    " +
		cellPrereq + ": applies with prerequisites; " + cellPresent + ": already in the tree;\n    " +
		cellError + ": could not be tested; " + cellNotTried + ": not relevant\n")
	if refused {
		b.WriteString("    " + cellRefused + ": applied, not built (the patch changes code that runs on\n    the build host)\n")
	}
	b.WriteString("\n")
}

func cell(p *report.PatchReport, tree string) string {
	if !hasStable(p) {
		return cellNotTried
	}
	for _, t := range p.Stable.Trees {
		if t.Name != tree {
			continue
		}
		switch {
		case t.Error != "":
			return cellError
		case t.Present != nil:
			return cellPresent
		case !t.Applied && len(t.Prerequisites) > 0:
			return cellPrereq
		case !t.Applied:
			return cellFail
		case t.Build == "ok":
			return cellOK
		case t.Build == "failed":
			return cellBuild
		case t.Build == "refused":
			return cellRefused
		}
		return cellApplied
	}
	return cellNotTried
}

// writeAlreadyApplied says which patches were already in the tree and so
// analysed against it with the patch reversed.
func writeAlreadyApplied(b *strings.Builder, ps []*report.PatchReport) {
	first := true
	for _, p := range ps {
		if p.AlreadyApplied == "" {
			continue
		}
		if first {
			section(b, "Already applied:")
			first = false
		}
		for i, l := range textfmt.Wrap(patchName(p)+": "+cleanLine(p.AlreadyApplied), 72) {
			if i > 0 {
				l = "  " + l
			}
			b.WriteString("    " + l + "\n")
		}
	}
}
