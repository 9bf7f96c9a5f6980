package web

import "strings"

// A wakeup finding's evidence holds its race as two columns of text, the
// way memory-barriers.txt shows one (rules/wakeup writes it):
//
//	CPU 0: pipe_write()                           | CPU 1: pipe_read()
//	  wake_up_interruptible(&pipe->rd_wait)       |
//	                                              | prepare_to_wait(...)
//
// ParseTimelines finds these blocks and returns them as rows, so the page
// draws a timeline instead of relying on a monospace font and a wide
// screen.

// Timeline is one CPU 0 / CPU 1 interleaving, in time order.
type Timeline struct {
	// CPU0 and CPU1 name what runs on each side.
	CPU0, CPU1 string
	Rows       []TimelineRow
}

// TimelineRow is one moment: a step on one side, or on both.
type TimelineRow struct {
	// N is the row's number, from 1.
	N           int
	Left, Right string
}

// timelineHead starts an interleaving block; the position of its
// separator is the column width.
const (
	cpu0Prefix = "CPU 0: "
	cpu1Sep    = "| CPU 1: "
)

// ParseTimelines splits evidence lines into the interleavings they hold
// and the other lines, in order.
func ParseTimelines(lines []string) (tls []*Timeline, rest []string) {
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		col := strings.Index(l, cpu1Sep)
		if !strings.HasPrefix(l, cpu0Prefix) || col < 0 {
			rest = append(rest, l)
			continue
		}
		tl := &Timeline{
			CPU0: strings.TrimSpace(strings.TrimPrefix(l[:col], cpu0Prefix)),
			CPU1: strings.TrimSpace(l[col+len(cpu1Sep):]),
		}
		for i+1 < len(lines) {
			left, right, ok := splitRow(lines[i+1], col)
			if !ok {
				break
			}
			i++
			tl.Rows = append(tl.Rows, TimelineRow{N: len(tl.Rows) + 1, Left: left, Right: right})
		}
		tls = append(tls, tl)
	}
	return tls, rest
}

// splitRow splits a row of a block whose separator is at col: the left
// column is padded to col, or longer and followed by " | ".
func splitRow(l string, col int) (left, right string, ok bool) {
	if strings.HasPrefix(l, cpu0Prefix) {
		return "", "", false // the next block
	}
	at := -1
	if len(l) > col && l[col] == '|' {
		at = col
	} else if col > 0 && len(l) >= col {
		if j := strings.Index(l[col-1:], " | "); j >= 0 {
			at = col - 1 + j + 1
		} else if strings.HasSuffix(l, " |") {
			at = len(l) - 1
		}
	}
	if at < 0 {
		return "", "", false
	}
	return strings.TrimSpace(l[:at]), strings.TrimSpace(l[at+1:]), true
}
