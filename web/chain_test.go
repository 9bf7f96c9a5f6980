package web

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

// TestLayoutChain: boxes follow the chain in order (one per run of steps
// in one function), one lane per file in the order the chain enters
// them, and a sleep-in-atomic chain marks the atomic entries, the
// sleeping call and the boxes that run in atomic context.
func TestLayoutChain(t *testing.T) {
	for _, tc := range []struct {
		name      string
		f         report.Finding
		funcs     []string
		lanes     []string
		kinds     []string // of every line, in order
		inAtomic  []bool
		atomicLeg bool
	}{
		{
			name:      "seed 002 with tree",
			f:         report.Finding{Rule: "sleep-in-atomic", Chain: seed002TreeChain()},
			funcs:     []string{"__post_watch_notification", "lock_wqueue", "__post_watch_notification", "post_one_notification", "__pipe_lock"},
			lanes:     []string{"kernel/watch_queue.c", "include/linux/pipe_fs_i.h"},
			kinds:     []string{"atomic", "call", "atomic", "call", "call", "sleep"},
			inAtomic:  []bool{true, true, true, true, true},
			atomicLeg: true,
		},
		{
			name: "wakeup chain has no marks",
			f: report.Finding{Rule: "wakeup", Chain: []report.Step{
				{Func: "a", File: "x.c", Line: 1, What: "calls b()"},
				{Func: "b", File: "y.c", Line: 2, What: "wake_up(&q)"},
			}},
			funcs:    []string{"a", "b"},
			lanes:    []string{"x.c", "y.c"},
			kinds:    []string{"call", "step"},
			inAtomic: []bool{false, false},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := LayoutChain(&tc.f)
			if got := c.Funcs(); !reflect.DeepEqual(got, tc.funcs) {
				t.Errorf("boxes %v, want %v", got, tc.funcs)
			}
			var lanes, kinds []string
			var inAtomic []bool
			for _, l := range c.Lanes {
				lanes = append(lanes, l.File)
			}
			for i, b := range c.Boxes {
				inAtomic = append(inAtomic, b.InAtomic)
				for _, l := range b.Lines {
					kinds = append(kinds, l.Kind)
				}
				if i > 0 && b.Y <= c.Boxes[i-1].Y+c.Boxes[i-1].Height {
					t.Errorf("box %d at y=%d overlaps the box before", i, b.Y)
				}
				if b.X+b.Width > c.Width || b.Y+b.Height > c.Height {
					t.Errorf("box %d outside the picture", i)
				}
			}
			if !reflect.DeepEqual(lanes, tc.lanes) || !reflect.DeepEqual(kinds, tc.kinds) || !reflect.DeepEqual(inAtomic, tc.inAtomic) {
				t.Errorf("lanes %v kinds %v in atomic %v", lanes, kinds, inAtomic)
			}
			if c.Sleep != slices.Contains(tc.kinds, "sleep") {
				t.Errorf("sleep legend %v", c.Sleep)
			}
			if len(c.Arrows) != len(c.Boxes)-1 || c.Atomic != tc.atomicLeg {
				t.Errorf("%d arrows for %d boxes, atomic %v", len(c.Arrows), len(c.Boxes), c.Atomic)
			}
		})
	}
	if LayoutChain(&report.Finding{}) != nil {
		t.Errorf("a finding without chain has a picture")
	}
}

func TestClip(t *testing.T) {
	if got := clipLeft("drivers/net/ethernet/intel/e1000e/mac.c", 12); got != "…1000e/mac.c" {
		t.Errorf("clipLeft keeps %q", got)
	}
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a bit too long", 10, "a bit too…"},
		{"äöüäöüäöüäöü", 5, "äöüä…"},
	} {
		if got := clipLeft(tc.in, tc.n); len([]rune(got)) > tc.n || got != tc.in && !strings.HasPrefix(got, "…") {
			t.Errorf("clipLeft(%q, %d) = %q", tc.in, tc.n, got)
		}
		if got := clipText(tc.in, tc.n); got != tc.want {
			t.Errorf("clipText(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
