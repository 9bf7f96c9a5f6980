package web

import (
	"reflect"
	"strings"
	"testing"
)

// pad is the left column of rules/wakeup's interleavings (46 wide).
func pad(s string) string {
	if len(s) >= 46 {
		return s + " "
	}
	return s + strings.Repeat(" ", 46-len(s))
}

func TestParseTimelines(t *testing.T) {
	long := strings.Repeat("x", 50)
	for _, tc := range []struct {
		name string
		in   []string
		tls  []Timeline
		rest []string
	}{
		{
			name: "none",
			in:   []string{"+\tmutex_lock(&pipe->mutex);", "a | b"},
			rest: []string{"+\tmutex_lock(&pipe->mutex);", "a | b"},
		},
		{
			name: "one block between evidence lines",
			in: []string{
				"+\twake_up(&q);",
				pad("CPU 0: pipe_write()") + "| CPU 1: pipe_read()",
				pad("  wake_up(&pipe->rd_wait)") + "|",
				pad("") + "| prepare_to_wait(&pipe->rd_wait)",
				pad(long) + "| schedule()",
				"after",
			},
			tls: []Timeline{{CPU0: "pipe_write()", CPU1: "pipe_read()", Rows: []TimelineRow{
				{N: 1, Left: "wake_up(&pipe->rd_wait)"},
				{N: 2, Right: "prepare_to_wait(&pipe->rd_wait)"},
				{N: 3, Left: long, Right: "schedule()"},
			}}},
			rest: []string{"+\twake_up(&q);", "after"},
		},
		{
			name: "two blocks back to back",
			in: []string{
				pad("CPU 0: a()") + "| CPU 1: b()",
				pad("x = 1") + "| r = y",
				pad("CPU 0: c()") + "| CPU 1: d()",
				pad("") + "| s = x",
			},
			tls: []Timeline{
				{CPU0: "a()", CPU1: "b()", Rows: []TimelineRow{{N: 1, Left: "x = 1", Right: "r = y"}}},
				{CPU0: "c()", CPU1: "d()", Rows: []TimelineRow{{N: 1, Right: "s = x"}}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tls, rest := ParseTimelines(tc.in)
			var got []Timeline
			for _, tl := range tls {
				got = append(got, *tl)
			}
			if !reflect.DeepEqual(got, tc.tls) || !reflect.DeepEqual(rest, tc.rest) {
				t.Errorf("got %+v rest %q\nwant %+v rest %q", got, rest, tc.tls, tc.rest)
			}
		})
	}
}
