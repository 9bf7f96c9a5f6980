package lava

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/runner"
)

// recordedBoot evaluates a recorded job log (testdata/<file>) as the
// LAVA backend does a finished job: the parsed log, the boot as the
// runner judges it, the console and results parts, and the suite.
func recordedBoot(t *testing.T, file string) (*jobLog, *runner.KernelResult, []byte, []byte, []runner.Test) {
	t.Helper()
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	l, err := parseLog(data)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	j := &Job{ID: 1, State: "Finished", Health: "Complete", StartTime: &now, EndTime: &now}
	tests, err := runner.SelectTests(nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := &runner.BootSpec{Accel: "tcg", Scale: 3, Boot: 3 * time.Minute, Total: 20 * time.Minute, Silence: 2 * time.Minute}
	out, console, results, err := outcome(j, l, spec)
	if err != nil {
		t.Fatal(err)
	}
	kr := &runner.KernelResult{}
	runner.NewLocal(runner.Options{Runs: 3}).EvalBoot(kr, spec, out, console, results, tests)
	if kr.Boot != "ok" || len(kr.Problems) > 0 {
		t.Fatalf("%s: boot %q problems %v", file, kr.Boot, kr.Problems)
	}
	if len(kr.Tests) != len(tests) {
		t.Fatalf("%s: %d results for %d tests", file, len(kr.Tests), len(tests))
	}
	return l, kr, console, results, tests
}

// testdata/complete-baseline.yaml is the log of a real job on the CI lab
// (Debian's LAVA 2023.01, device type qemu, TCG): a baseline kernel that
// ran the whole suite with its frames on the console. The frames must
// survive the trip through LAVA's log byte for byte (length and CRC-32
// are checked): every test passes, with metrics.
func TestParseLogRealJob(t *testing.T) {
	l, kr, console, _, _ := recordedBoot(t, "complete-baseline.yaml")
	if !l.Hello || !l.Done || l.JobResult != "pass" || l.ErrorType != "" || l.MonitorTimedOut {
		t.Fatalf("hello %v done %v result %q error %q timeout %v", l.Hello, l.Done, l.JobResult, l.ErrorType, l.MonitorTimedOut)
	}
	for _, tr := range kr.Tests {
		if tr.Verdict != runner.Pass {
			t.Errorf("%s: %s (%s)", tr.Name, tr.Verdict, tr.Reason)
		}
	}
	if tr := kr.Test("pipe_token_ring"); tr == nil || len(tr.Metrics) == 0 || len(tr.Metrics[0].Values) != 3 {
		t.Errorf("pipe_token_ring metrics: %+v", tr)
	}
	if !strings.Contains(string(console), "Run /init as init process") || strings.Contains(string(console), "@@AUTOSEL") {
		t.Errorf("console part wrong:\n%s", console)
	}
}

func TestOutcome(t *testing.T) {
	guest := "[    0.000000] Linux version 6.1.192\n"
	spec := &runner.BootSpec{Boot: time.Minute, Silence: 2 * time.Minute}
	tests := []struct {
		name        string
		health      string
		log         jobLog
		comment     string
		wantInfra   bool
		wantStopped bool
	}{
		{"complete with done", "Complete", jobLog{Target: []byte(guest + "@@AUTOSEL-HELLO 1\n@@AUTOSEL-DONE\n"), Hello: true, Done: true}, "", false, false},
		{"silent guest: monitor timeout", "Complete", jobLog{Target: []byte(guest + "@@AUTOSEL-HELLO 1\n"), Hello: true, MonitorTimedOut: true}, "", false, true},
		{"lava timeout after boot", "Incomplete", jobLog{Target: []byte(guest), ErrorType: "LAVATimeout", ErrorMsg: "lava-test-monitor timed out after 300 seconds"}, "", false, true},
		{"qemu exited after a panic", "Incomplete", jobLog{Target: []byte(guest + "Kernel panic - not syncing\n"), ErrorType: "Infrastructure", ErrorMsg: "Connection closed"}, "", false, false},
		{"connection closed before any kernel output", "Incomplete", jobLog{Target: []byte("SeaBIOS (version 1.16.2)\n"), ErrorType: "Infrastructure", ErrorMsg: "Connection closed"}, "", true, false},
		{"download failed", "Incomplete", jobLog{ErrorType: "Infrastructure", ErrorMsg: "Unable to fetch http://x/bzImage"}, "", true, false},
		{"dispatcher bug", "Incomplete", jobLog{Target: []byte(guest), ErrorType: "Bug", ErrorMsg: "boom"}, "", true, false},
		{"canceled", "Canceled", jobLog{Target: []byte(guest)}, "", true, false},
		{"incomplete, log cut", "Incomplete", jobLog{}, "worker lost", true, false},
		{"complete without output", "Complete", jobLog{}, "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &Job{ID: 7, State: "Finished", Health: tt.health, FailureComment: tt.comment}
			l := tt.log
			if strings.Contains(string(l.Target), "@@AUTOSEL-HELLO") {
				l.Hello = true
			}
			out, _, _, err := outcome(j, &l, spec)
			if tt.wantInfra {
				if err == nil || !errorsIsInfra(err) {
					t.Fatalf("err %v, want ErrInfra", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Stopped != tt.wantStopped {
				t.Errorf("stopped %v (%s), want %v", out.Stopped, out.Why, tt.wantStopped)
			}
		})
	}
}

// testdata/console-in-frame.yaml is a real job on the CI lab (a kernel
// with pipe_release's wake-up narrowed to one reader): two kernel console
// lines ("[    2.555595] input: ...") were printed in the middle of the
// boot frame on the shared serial console, so its length and checksum
// did not match. Without those lines the frame checks out: the boot has
// no problem and every suite test has its verdict.
func TestParseLogConsoleInFrame(t *testing.T) {
	data, err := os.ReadFile("testdata/console-in-frame.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "k 6132[    2.555595] input: ImExPS/2") {
		t.Fatal("the recorded job no longer has the console line inside a frame")
	}
	_, kr, console, results, _ := recordedBoot(t, "console-in-frame.yaml")
	if !strings.Contains(string(console), "[    2.578591] input: AT Translated Set 2 keyboard") ||
		strings.Contains(string(results), "[    2.555595]") {
		t.Errorf("the console lines cut into the frame are not on the console")
	}
	for _, tr := range kr.Tests {
		want := runner.Pass
		if tr.Name == "pipe_two_readers" {
			want = runner.Hang
		}
		if tr.Verdict != want {
			t.Errorf("%s: %s (%s), want %s", tr.Name, tr.Verdict, tr.Reason, want)
		}
	}
}
