package lockctx

import (
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

func TestPointerLinks(t *testing.T) {
	call := report.Step{Func: "f", What: "calls q->ops->reset()"}
	typed := report.Step{Func: "hw_reset", What: "calls hw_reset() via foo_ops.reset (assigned at a.c:12)"}
	byName := report.Step{Func: "sim_reset", What: "calls sim_reset() via .reset (assigned at b.c:3, matched by member name)"}
	plain := report.Step{Func: "g", What: "calls g()"}
	prim := report.Step{Func: "g", What: "mutex_lock(&g->lock)"}
	for _, tc := range []struct {
		name  string
		steps []report.Step
		links []int
		typed bool
	}{
		{"no pointer", []report.Step{call, plain, prim}, nil, true},
		{"the call itself, typed", []report.Step{call, typed, prim}, []int{1}, true},
		{"deeper, by name", []report.Step{call, plain, byName, prim}, []int{2}, false},
		{"two links", []report.Step{call, typed, plain, typed, prim}, []int{1, 3}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			links, typed := PointerLinks(tc.steps)
			if !reflect.DeepEqual(links, tc.links) || typed != tc.typed {
				t.Errorf("PointerLinks = %v, %v; want %v, %v", links, typed, tc.links, tc.typed)
			}
		})
	}
}
