package wakeup

import (
	"reflect"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// site makes a site of kind on queue q in a function whose calls are
// calls, the site's own call last.
func site(kind siteKind, q string, calls ...cscan.Call) *wsite {
	f := &wfunc{Name: "f", F: &cscan.Func{Calls: calls}}
	own := calls[len(calls)-1]
	s := &wsite{Kind: kind, Fn: f, Call: own, Q: q, Arg: own.Args[0]}
	switch {
	case own.Name == "clear_and_wake_up_bit":
		s.Arg = own.Args[1]
	case strings.HasPrefix(own.Name, "wait_on_bit"):
		s.WKind = "bit"
	case strings.HasPrefix(own.Name, "wait_var_event"):
		s.WKind = "var"
	case strings.HasPrefix(own.Name, "wait_event"):
		s.WKind = "wait"
	}
	f.Sites = []*wsite{s}
	return s
}

// call makes a call of name at line with args.
func call(line int, name string, args ...string) cscan.Call {
	return cscan.Call{Name: name, Line: line, Args: args}
}

func TestSplitPairBits(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *wsite
		want []string
	}{
		{"wait_var_event tests a bit", site(siteWait, "var:t.state",
			call(3, "wait_var_event", "&t->state", "!test_bit(TASKLET_STATE_RUN, &t->state)")), []string{"state:TASKLET_STATE_RUN"}},
		{"wait_on_bit names its bit, not its sleep state", site(siteWait, "bit:t.state",
			call(3, "wait_on_bit", "&t->state", "TASKLET_STATE_SCHED", "TASK_UNINTERRUPTIBLE")), []string{"state:TASKLET_STATE_SCHED"}},
		{"a plain flag names none", site(siteWait, "d.wq",
			call(3, "wait_event", "d->wq", "d->done")), nil},
		{"a flag beside a bit test names none", site(siteWait, "d.wq",
			call(3, "wait_event", "d->wq", "test_bit(DEV_BUSY, &d->flags) || READ_ONCE(d->done)")), nil},
		{"a timeout constant is no bit", site(siteWait, "var:d.state",
			call(3, "wait_var_event_timeout", "&d->state", "READ_ONCE(d->done)", "DEV_TIMEOUT")), nil},
		{"waker: the bit cleared above it", site(siteWake, "var:t.state",
			call(1, "smp_mb__before_atomic"), call(2, "clear_bit", "TASKLET_STATE_RUN", "&t->state"), call(4, "wake_up_var", "&t->state")), []string{"state:TASKLET_STATE_RUN"}},
		{"waker: test_and_clear_bit in the guard", site(siteWake, "var:t.state",
			call(1, "test_and_clear_bit", "TASKLET_STATE_SCHED", "&t->state"), call(2, "wake_up_var", "&t->state")), []string{"state:TASKLET_STATE_SCHED"}},
		{"waker: clear_and_wake_up_bit names its bit", site(siteWake, "bit:t.state",
			call(2, "clear_and_wake_up_bit", "TASKLET_STATE_RUN", "&t->state")), []string{"state:TASKLET_STATE_RUN"}},
		{"waker: a bit changed far above does not count", site(siteWake, "var:t.state",
			call(1, "set_bit", "OTHER_BIT", "&t->state"), call(1+maxPairLines+1, "wake_up_var", "&t->state")), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			if tc.s.Kind == siteWait {
				got = waiterBits(tc.s)
			} else {
				got = wakerBits(tc.s)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("bits = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSplitSeparates(t *testing.T) {
	runWait := site(siteWait, "bit:t.state", call(3, "wait_on_bit", "&t->state", "RUN", "TASK_UNINTERRUPTIBLE"))
	runWake := site(siteWake, "bit:t.state", call(2, "clear_and_wake_up_bit", "RUN", "&t->state"))
	runWakeOld := site(siteWake, "var:t.state", call(1, "clear_bit", "RUN", "&t->state"), call(2, "wake_up_var", "&t->state"))
	schedWait := site(siteWait, "var:t.state", call(3, "wait_var_event", "&t->state", "!test_bit(SCHED, &t->state)"))
	schedWake := site(siteWake, "var:t.state", call(1, "test_and_clear_bit", "SCHED", "&t->state"), call(2, "wake_up_var", "&t->state"))
	flagWait := site(siteWait, "var:t.state", call(3, "wait_var_event", "&t->state", "t->done"))
	otherWordWake := site(siteWake, "bit:t.state", call(1, "set_bit", "RUN", "&t->flags"), call(2, "wake_up_var", "&t->state"))
	for _, tc := range []struct {
		name  string
		byKey map[string][]*wsite
		want  bool
	}{
		{"each bit's pair on its own queue", map[string][]*wsite{
			"bit:t.state": {runWait, runWake}, "var:t.state": {schedWait, schedWake}}, false},
		{"the RUN waiter moved, its waker did not", map[string][]*wsite{
			"bit:t.state": {runWait}, "var:t.state": {runWakeOld, schedWait, schedWake}}, true},
		{"a waiter whose bits are unknown is served by every waker", map[string][]*wsite{
			"bit:t.state": {runWait, runWake}, "var:t.state": {flagWait, schedWake}}, true},
		{"a bit of another word tells nothing", map[string][]*wsite{
			"var:t.state": {schedWait}, "bit:t.state": {otherWordWake}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := splitSeparates(tc.byKey); got != tc.want {
				t.Errorf("splitSeparates = %v, want %v", got, tc.want)
			}
		})
	}
}
