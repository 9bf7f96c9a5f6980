package web

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// The stable matrix: one row per patch, one column per stable tree the
// series was tried on. A cell says its state in words and with a symbol
// (✓ applies, ≡ already there, ✗ fails, ! error, – not relevant), and its
// class colours it; the words carry the meaning, so the table reads in
// black and white and to a screen reader.

// Matrix is a series' stable results, patches by trees.
type Matrix struct {
	Trees []string
	Rows  []MatrixRow
}

// MatrixRow is one patch's results.
type MatrixRow struct {
	Patch string
	Cells []MatrixCell
}

// MatrixCell is one patch on one tree.
type MatrixCell struct {
	// Class is the cell's state: ok, present, fail, error or none.
	Class string
	// Symbol and Text say the state; Detail adds git's or the
	// compiler's words.
	Symbol, Text, Detail string
}

// BuildMatrix returns r's stable matrix, or nil when no patch was tried
// on a stable tree.
func BuildMatrix(r *report.Report) *Matrix {
	m := &Matrix{}
	col := map[string]int{}
	addTree := func(name string) {
		if _, ok := col[name]; !ok {
			col[name] = len(m.Trees)
			m.Trees = append(m.Trees, name)
		}
	}
	if r.Stable != nil {
		for _, t := range r.Stable.Trees {
			addTree(t.Name)
		}
	}
	for _, p := range r.Patches {
		if p.Stable != nil {
			for _, t := range p.Stable.Trees {
				addTree(t.Name)
			}
		}
	}
	if len(m.Trees) == 0 {
		return nil
	}
	for i := range r.Patches {
		p := &r.Patches[i]
		row := MatrixRow{Patch: patchLabel(p), Cells: make([]MatrixCell, len(m.Trees))}
		for j := range row.Cells {
			row.Cells[j] = MatrixCell{Class: "none", Symbol: "–", Text: "not relevant"}
		}
		if p.Stable != nil {
			for _, t := range p.Stable.Trees {
				row.Cells[col[t.Name]] = treeCell(&t)
			}
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// treeCell says what became of a patch on one tree.
func treeCell(t *report.TreeResult) MatrixCell {
	switch {
	case t.Error != "":
		return MatrixCell{Class: "error", Symbol: "!", Text: "error", Detail: t.Error}
	case t.Present != nil:
		return MatrixCell{Class: "present", Symbol: "≡", Text: "already in " + t.Present.Short(), Detail: t.Present.Subject}
	case !t.Applied:
		c := MatrixCell{Class: "fail", Symbol: "✗", Text: "does not apply", Detail: strings.TrimSpace(t.ApplyError)}
		if len(t.FailedHunks) > 0 {
			c.Detail = strings.TrimSpace("hunks " + strings.Join(t.FailedHunks, ", ") + "\n" + c.Detail)
		}
		if len(t.Prerequisites) > 0 {
			var ps []string
			for _, p := range t.Prerequisites {
				ps = append(ps, p.String())
			}
			c.Text = "applies after " + strings.Join(ps, ", ")
			c.Class, c.Symbol = "warn", "≈"
		}
		return c
	case t.Build == "failed":
		return MatrixCell{Class: "fail", Symbol: "✗", Text: "applies, build fails", Detail: strings.Join(t.BuildErrors, "\n")}
	case t.Build == "refused":
		return MatrixCell{Class: "error", Symbol: "!", Text: "applies, build refused", Detail: strings.Join(t.BuildErrors, "\n")}
	case t.Build == "ok":
		return MatrixCell{Class: "ok", Symbol: "✓", Text: "applies, builds"}
	}
	return MatrixCell{Class: "ok", Symbol: "✓", Text: "applies"}
}

// patchLabel is "[n/N] subject" or the subject alone.
func patchLabel(p *report.PatchReport) string {
	if p.Number > 0 {
		return fmt.Sprintf("#%d ", p.Number) + p.Subject
	}
	return p.Subject
}
