package wakeup

import (
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestSleepTerms: the events an open-coded sleep tests after its state
// set are its guard's terms negated and the terms of the ifs that leave
// the sleep; an if that holds the sleep call itself (schedule();
// continue;) is its guard, not an exit.
func TestSleepTerms(t *testing.T) {
	src := `void f(struct x *x)
{
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (READ_ONCE(x->done))
			break;
		if (!x->ready) {
			schedule();
			continue;
		}
		x->ready = 0;
	}
}
`
	file := cscan.ParseFile("drivers/x.c", []byte(src))
	if len(file.Funcs) != 1 {
		t.Fatalf("%d functions", len(file.Funcs))
	}
	f := &wfunc{F: file.Funcs[0]}
	var sleep cscan.Call
	for _, c := range f.F.Calls {
		if c.Name == "schedule" {
			sleep = c
		}
	}
	terms, _ := sleepTerms(f, sleep, 4)
	var events []string
	for _, tm := range terms {
		events = append(events, tm.event)
	}
	if want := []string{"x->ready", "READ_ONCE(x->done)"}; !reflect.DeepEqual(events, want) {
		t.Errorf("events %q, want %q", events, want)
	}
}
