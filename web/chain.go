package web

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/autosel-bot/autosel-bot/report"
)

// The call chain picture: one column (lane) per file, in the order the
// chain first enters each; one box per run of consecutive steps in the
// same function, placed below the box before it, so the picture reads
// top to bottom in call order; an arrow from each box to the next. For a
// sleep-in-atomic finding the steps that enter an atomic context (what is
// neither a call nor the last step) are marked "atomic", the last step
// (the sleeping primitive) "sleep", and every box from the first atomic
// entry on is hatched: it runs in atomic context. Marks are shapes and
// words as well as colours, so the picture reads in black and white.

// Chain layout sizes, in SVG user units (pixels at scale 1).
const (
	laneWidth  = 330
	laneGap    = 16
	boxWidth   = laneWidth - 20
	laneHeader = 30
	boxHeader  = 22
	lineHeight = 17
	boxPad     = 8
	boxGap     = 26
	maxChars   = 38 // of a step line at 12px monospace in boxWidth
)

// ChainSVG is a laid-out call chain, rendered by the "chain" template.
type ChainSVG struct {
	Width, Height int
	Lanes         []Lane
	Boxes         []Box
	Arrows        []Arrow
	// Atomic and Sleep are set when some step is marked atomic, or
	// sleep (the legend explains the marks shown).
	Atomic, Sleep bool
}

// Lane is the column of one file.
type Lane struct {
	X, Width, Height int
	File             string
	// Label is File, its start cut to fit the lane ("…" first).
	Label string
}

// Box is one function's run of steps.
type Box struct {
	X, Y, Width, Height int
	Func, File          string
	// InAtomic is set when the box runs in atomic context (hatched).
	InAtomic bool
	Lines    []BoxLine
}

// BoxLine is one step inside a box.
type BoxLine struct {
	X, Y int
	// Mark is a symbol for the kind: "⚑" atomic, "⚠" sleep, "" else.
	Mark string
	// Text is the step, clipped to the box; Full is the whole step (the
	// line's tooltip).
	Text, Full string
	// Kind is "call", "atomic" (enters an atomic context) or "sleep"
	// (the sleeping call).
	Kind string
}

// markOf is the symbol of a step kind.
func markOf(kind string) string {
	switch kind {
	case "atomic":
		return "⚑"
	case "sleep":
		return "⚠"
	}
	return ""
}

// Arrow joins two consecutive boxes.
type Arrow struct{ X1, Y1, X2, Y2 int }

// Funcs returns the functions of the boxes in order (a function called
// again after another appears again).
func (c *ChainSVG) Funcs() []string {
	var out []string
	for _, b := range c.Boxes {
		out = append(out, b.Func)
	}
	return out
}

// stepKinds classifies the steps of f's chain.
func stepKinds(f *report.Finding) []string {
	kinds := make([]string, len(f.Chain))
	sleep := f.Rule == "sleep-in-atomic"
	for i, s := range f.Chain {
		switch {
		case strings.HasPrefix(s.What, "calls "):
			kinds[i] = "call"
		case sleep && i == len(f.Chain)-1:
			kinds[i] = "sleep"
		case sleep:
			kinds[i] = "atomic"
		default:
			kinds[i] = "step"
		}
	}
	return kinds
}

// LayoutChain lays out f's call chain; nil when it has none.
func LayoutChain(f *report.Finding) *ChainSVG {
	if len(f.Chain) == 0 {
		return nil
	}
	kinds := stepKinds(f)
	c := &ChainSVG{}
	lane := map[string]int{}
	for _, s := range f.Chain {
		if _, ok := lane[s.File]; !ok {
			lane[s.File] = len(c.Lanes)
			c.Lanes = append(c.Lanes, Lane{X: len(c.Lanes) * (laneWidth + laneGap), Width: laneWidth, File: s.File, Label: clipLeft(s.File, maxChars)})
		}
	}
	y := laneHeader + boxGap/2
	inAtomic := false
	for i := 0; i < len(f.Chain); {
		s := f.Chain[i]
		b := Box{X: c.Lanes[lane[s.File]].X + (laneWidth-boxWidth)/2, Y: y, Width: boxWidth, Func: s.Func, File: s.File}
		ly := y + boxHeader + lineHeight - 4
		for ; i < len(f.Chain) && f.Chain[i].Func == s.Func && f.Chain[i].File == s.File; i++ {
			st := f.Chain[i]
			switch kinds[i] {
			case "atomic":
				inAtomic, c.Atomic = true, true
			case "sleep":
				c.Sleep = true
			}
			full := st.What
			if st.Line > 0 {
				full = fmt.Sprintf("%d: %s", st.Line, st.What)
			}
			b.Lines = append(b.Lines, BoxLine{X: b.X + 10, Y: ly, Mark: markOf(kinds[i]), Full: full, Kind: kinds[i]})
			bl := &b.Lines[len(b.Lines)-1]
			bl.Text = clipText(full, maxChars-2*utf8.RuneCountInString(bl.Mark))
			ly += lineHeight
		}
		b.InAtomic = inAtomic
		b.Height = boxHeader + len(b.Lines)*lineHeight + boxPad
		if n := len(c.Boxes); n > 0 {
			p := c.Boxes[n-1]
			c.Arrows = append(c.Arrows, Arrow{X1: p.X + p.Width/2, Y1: p.Y + p.Height, X2: b.X + b.Width/2, Y2: b.Y - 2})
		}
		c.Boxes = append(c.Boxes, b)
		y += b.Height + boxGap
	}
	c.Height = y
	c.Width = len(c.Lanes)*(laneWidth+laneGap) - laneGap
	for i := range c.Lanes {
		c.Lanes[i].Height = c.Height
	}
	return c
}

// clipLeft shortens s to n runes, starting with "…" when cut (a path
// keeps its file name).
func clipLeft(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}

// clipText shortens s to n runes, ending in "…" when cut.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
