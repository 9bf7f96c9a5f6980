package runner

import (
	"strings"
	"testing"
	"time"
)

func TestEvalFrame(t *testing.T) {
	splat := []KmsgLine{{1, "autosel: begin t 0"}, {2, "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580"},
		{3, "Call Trace:"}, {4, " </TASK>"}}
	tests := []struct {
		name   string
		f      Frame
		want   Verdict
		reason string
	}{
		{"pass", Frame{Out: []string{`{"result":"pass"}`}}, Pass, ""},
		{"fail", Frame{Out: []string{`{"result":"fail","reason":"bad"}`}, Exit: 1}, Fail, "bad"},
		{"self hang", Frame{Out: []string{`{"result":"hang","reason":"1 of 2 readers still blocked"}`}, Exit: 1}, Hang, "readers still blocked"},
		{"timeout", Frame{Timeout: true, Signal: 9, Exit: -1}, Hang, "killed"},
		{"splat beats pass", Frame{Out: []string{`{"result":"pass"}`}, Kmsg: splat}, Crash, "BUG: sleeping function"},
		{"signal", Frame{Signal: 11, Exit: -1}, Fail, "signal 11"},
		{"no result", Frame{Exit: 0}, Fail, "without a result"},
		{"pass but nonzero exit", Frame{Out: []string{`{"result":"pass"}`}, Exit: 3}, Fail, "status 3"},
		{"exec failure", Frame{Exit: 127}, Fail, "could not execute"},
	}
	for _, tt := range tests {
		rr, _, _ := evalFrame(&tt.f, 5*time.Second)
		if rr.Verdict != tt.want || !strings.Contains(rr.Reason, tt.reason) {
			t.Errorf("%s: %s %q, want %s %q", tt.name, rr.Verdict, rr.Reason, tt.want, tt.reason)
		}
	}
}

func TestEvalFrameMetrics(t *testing.T) {
	f := Frame{Out: []string{`{"log":"hello"}`, `{"metric":"m","value":1.5,"unit":"u","better":"lower"}`, "stray text", `{"result":"pass"}`}}
	rr, _, ms := evalFrame(&f, time.Second)
	if rr.Verdict != Pass || len(ms) != 1 || ms[0].value != 1.5 || len(rr.Log) != 2 {
		t.Fatalf("rr %+v metrics %+v", rr, ms)
	}
}

func TestEvalSuiteMissingFrames(t *testing.T) {
	tests := []Test{{Name: "a", Timeout: time.Second}, {Name: "b", Timeout: time.Second, Metric: true}, {Name: "c", Timeout: time.Second}}
	results := "@@AUTOSEL-HELLO 1\n" + mkFrame("a", 0, "o {\"result\":\"pass\"}\n", "exit=0 sig=0 timeout=0 unreaped=0 ms=5") +
		mkFrame("b", 0, "o {\"metric\":\"m\",\"value\":2,\"unit\":\"u\",\"better\":\"lower\"}\no {\"result\":\"pass\"}\n", "exit=0 sig=0 timeout=0 unreaped=0 ms=5") +
		"@@AUTOSEL-BEGIN b 1\n"
	console := "[ 1.0] autosel: begin b 1\n[ 1.1] BUG: kernel NULL pointer dereference, address: 0000000000000000\n[ 1.2] Oops: 0002 [#1] PREEMPT SMP\n[ 1.3] Kernel panic - not syncing: Fatal exception\n"
	ch := parseChannel([]byte(results))
	got := evalSuite(ch, []byte(console), tests, func(t Test) int {
		if t.Metric {
			return 3
		}
		return 1
	}, 1, vmEnd{why: "QEMU exited"})
	if len(got) != 3 {
		t.Fatalf("%d results", len(got))
	}
	if got[0].Verdict != Pass {
		t.Errorf("a: %s", got[0].Verdict)
	}
	b := got[1]
	if b.Verdict != Crash || len(b.Splats) != 1 || b.Splats[0].Kind != "oops" || len(b.Runs) != 3 || b.Runs[2].Verdict != NotRun {
		t.Errorf("b: %+v", b)
	}
	if len(b.Metrics) != 1 || len(b.Metrics[0].Values) != 1 {
		t.Errorf("b metrics: %+v", b.Metrics)
	}
	if got[2].Verdict != NotRun {
		t.Errorf("c: %s", got[2].Verdict)
	}
	// A VM the host stopped while a test ran without a splat: hang.
	got = evalSuite(ch, []byte("[ 1.0] autosel: begin b 1\n"), tests[1:2], func(Test) int { return 2 }, 1, vmEnd{stopped: true, why: "silent"})
	if got[0].Runs[1].Verdict != Hang {
		t.Errorf("stopped VM: %+v", got[0].Runs)
	}
}
