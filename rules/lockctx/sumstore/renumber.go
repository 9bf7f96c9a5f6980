package sumstore

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// A patch moves what it does not change: the lines of a rescanned file
// outside the functions it changes (unchangedfuncs.go), an ops table
// below an added function. The stored summaries quoting such places are
// renumbered as they are read.

// renumber rewrites the places quoted in s that the patch moved: lines
// of rescanned files outside the functions it changed (lines), and the
// assignment places quoted in chain steps (moved).
func (src *patchSources) renumber(s *summary.Summary) {
	moved := src.moved
	line := func(file string, l int) int {
		if nl, ok := src.lines[file][l]; ok {
			return nl
		}
		return l
	}
	steps := func(ss []report.Step) {
		for i := range ss {
			ss[i].Line = line(ss[i].File, ss[i].Line)
			if len(moved) > 0 {
				ss[i].What = renumberWhat(ss[i].What, moved)
			}
		}
	}
	effects := func(es []summary.Effect) {
		for i := range es {
			steps(es[i].Steps)
		}
	}
	reach := func(r *summary.Reach) {
		r.Why = renumberPlaces(r.Why, line)
		steps(r.Steps)
		effects(r.Drops)
		effects(r.Retakes)
	}
	if s.Alt != nil {
		reach(s.Alt)
	}
	if s.Reach != nil {
		reach(s.Reach)
	}
	effects(s.Acquires)
	effects(s.CondAcquires)
	effects(s.Drops)
	for i := range s.ArgReaches {
		a := &s.ArgReaches[i]
		reach(&a.Reach)
		// The primitive call is the chain's last step's.
		if n := len(a.Steps); n > 0 && len(src.lines[a.Steps[n-1].File]) > 0 {
			file := a.Steps[n-1].File
			a.Call.Line = line(file, a.Call.Line)
			if len(a.Call.Guards) > 0 {
				gs := append([]cscan.Guard(nil), a.Call.Guards...)
				for j := range gs {
					gs[j].Line = line(file, gs[j].Line)
				}
				a.Call.Guards = gs
			}
		}
	}
}

// renumberWhat renumbers "(assigned at FILE:LINE" in what when moved.
func renumberWhat(what string, moved map[string]map[int]int) string {
	i := strings.Index(what, summary.AssignedAt)
	if i < 0 {
		return what
	}
	rest := what[i+len(summary.AssignedAt):]
	colon := strings.LastIndexByte(rest, ':')
	end := colon + 1
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if colon < 0 || end == colon+1 {
		return what
	}
	line, err := strconv.Atoi(rest[colon+1 : end])
	if err != nil {
		return what
	}
	nl, ok := moved[rest[:colon]][line]
	if !ok {
		return what
	}
	return what[:i+len(summary.AssignedAt)] + rest[:colon+1] + strconv.Itoa(nl) + rest[end:]
}

// placeRe is a place a reason quotes ("set up by devm_regmap_init_i2c()
// at drivers/mfd/x.c:41"): $1 the file, $2 the line.
var placeRe = regexp.MustCompile(`\bat ([\w./+-]+\.[ch]):(\d+)`)

// renumberPlaces renumbers the places why quotes with line.
func renumberPlaces(why string, line func(file string, l int) int) string {
	if !strings.Contains(why, " at ") {
		return why
	}
	return placeRe.ReplaceAllStringFunc(why, func(m string) string {
		sm := placeRe.FindStringSubmatch(m)
		l, err := strconv.Atoi(sm[2])
		if err != nil {
			return m
		}
		return "at " + sm[1] + ":" + strconv.Itoa(line(sm[1], l))
	})
}
