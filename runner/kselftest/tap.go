package kselftest

import (
	"fmt"
	"strconv"
	"strings"
)

// Status is one TAP test point's outcome.
type Status string

// TAP outcomes.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Point is one TAP test point ("ok 3 name # SKIP why").
type Point struct {
	// Name is the description, unique within one ParseTAP result (a
	// repeated one gets " (2)", " (3)", ...).
	Name string
	// Status is pass, fail or skip (a "# TODO" failure counts as skip,
	// as kselftest's xfail).
	Status Status
	// Directive is the text after "# SKIP", "# TODO" or "# XFAIL", if any.
	Directive string
	// Stream is the 1-based index of the TAP stream the point is in (a
	// "TAP version" line, or a plan after test points, starts the next);
	// Number is its test number there (its position when it has none).
	// Unlike the description, which a failing kselftest often extends
	// with the error, they name the same test on both kernels.
	Stream, Number int
}

// TAP is what ParseTAP read from one program's output.
type TAP struct {
	// Points are the test points in order.
	Points []Point
	// Planned is the sum of the plans ("1..N") seen.
	Planned int
	// Bailed is the "Bail out!" reason, if a stream bailed out.
	Bailed string
}

// ParseTAP reads the TAP test points in a program's output lines. The
// output may hold several TAP streams one after the other (a run.sh that
// runs several kselftest programs), and nested ones indented or behind
// "# " (kselftest's runner prefixes the output of the test it runs).
// Lines that are not TAP are ignored.
func ParseTAP(lines []string) TAP {
	var t TAP
	seen := map[string]int{}
	stream, inStream := 0, 0 // inStream: points in the current stream
	for _, raw := range lines {
		l, nested := stripNesting(raw)
		if strings.HasPrefix(l, "TAP version ") {
			stream, inStream = stream+1, 0
			continue
		}
		if rest, ok := strings.CutPrefix(l, "Bail out!"); ok {
			if t.Bailed == "" {
				t.Bailed = strings.TrimSpace(rest)
				if t.Bailed == "" {
					t.Bailed = "bailed out"
				}
			}
			continue
		}
		if n, ok := parsePlan(l); ok {
			if stream == 0 || inStream > 0 {
				stream, inStream = stream+1, 0
			}
			t.Planned += n
			continue
		}
		p, ok := parsePoint(l, nested)
		if !ok {
			continue
		}
		if stream == 0 {
			stream = 1
		}
		inStream++
		p.Stream = stream
		if p.Number <= 0 {
			p.Number = inStream
		}
		if p.Name == "" {
			p.Name = fmt.Sprintf("test %d", len(t.Points)+1)
		}
		base := p.Name
		for seen[p.Name] > 0 {
			seen[base]++
			p.Name = fmt.Sprintf("%s (%d)", base, seen[base])
		}
		seen[p.Name]++
		t.Points = append(t.Points, p)
	}
	return t
}

// stripNesting removes leading whitespace and "# " nesting prefixes and
// reports whether there were any "#" prefixes.
func stripNesting(l string) (string, bool) {
	nested := false
	for {
		l = strings.TrimLeft(l, " \t")
		rest, ok := strings.CutPrefix(l, "#")
		if !ok {
			return strings.TrimRight(l, " \t\r"), nested
		}
		nested = true
		l = rest
	}
}

// parsePlan reads "1..N" (with an optional "# reason").
func parsePlan(l string) (int, bool) {
	rest, ok := strings.CutPrefix(l, "1..")
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// parsePoint reads "ok N desc # DIRECTIVE why" or "not ok ...". Behind a
// "#" prefix (nested output or a comment) the number is required, so a
// comment like "# ok, done" is not a test point.
func parsePoint(l string, nested bool) (Point, bool) {
	status := Pass
	rest, ok := strings.CutPrefix(l, "ok")
	if !ok {
		if rest, ok = strings.CutPrefix(l, "not ok"); !ok {
			return Point{}, false
		}
		status = Fail
	}
	if rest != "" && rest[0] != ' ' {
		return Point{}, false
	}
	rest = strings.TrimLeft(rest, " ")
	num, after, _ := strings.Cut(rest, " ")
	number, err := strconv.Atoi(num)
	if err == nil {
		rest = after
	} else if nested {
		return Point{}, false
	}
	desc, dir, hasDir := strings.Cut(rest, "#")
	desc = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(desc), "- "))
	p := Point{Name: desc, Status: status, Number: number}
	if hasDir {
		dir = strings.TrimSpace(dir)
		word, why, _ := strings.Cut(dir, " ")
		switch strings.ToUpper(word) {
		case "SKIP", "SKIPPED":
			p.Status, p.Directive = Skip, "SKIP "+strings.TrimSpace(why)
		case "TODO", "XFAIL":
			p.Status, p.Directive = Skip, strings.ToUpper(word)+" "+strings.TrimSpace(why)
		default:
			// Not a directive: part of the description.
			p.Name = strings.TrimSpace(desc + " #" + dir)
		}
		p.Directive = strings.TrimSpace(p.Directive)
	}
	return p, true
}

// ExitStatus maps a kselftest program's exit status to an outcome:
// 0 pass, 4 (KSFT_SKIP) skip, anything else fail.
func ExitStatus(code int) Status {
	switch code {
	case 0:
		return Pass
	case 4:
		return Skip
	}
	return Fail
}
