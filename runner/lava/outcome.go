package lava

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/runner"
)

// ErrInfra marks a job that produced no result for the kernel: the lab
// failed (infrastructure error, lost dispatcher, no device online,
// cancellation by someone else). The Runner retries it and then reports
// infra-error, never a regression.
var ErrInfra = errors.New("lava: infrastructure failure")

// outcome maps a finished job and its log to the local backend's boot
// outcome and the two serial logs, or to an ErrInfra error.
//
//   - Complete with init's done marker: the guest ran every test (QEMU exited).
//   - Complete without it: the monitor stopped on its connection timeout, the
//     guest was silent: the watchdog stopped the VM.
//   - Incomplete on a LAVA timeout with guest output: the VM was stopped.
//   - Incomplete because the connection closed (QEMU exited, -no-reboot after
//     a panic) with guest output: QEMU exited.
//   - Anything else (no guest output, infrastructure, bug, configuration or
//     job errors, cancellation) is an infrastructure failure.
func outcome(j *Job, l *jobLog, spec *runner.BootSpec) (*runner.BootOutcome, []byte, []byte, error) {
	var elapsed time.Duration
	if j.StartTime != nil && j.EndTime != nil {
		elapsed = j.EndTime.Sub(*j.StartTime)
	}
	guest := guestOutput(l)
	infra := func(why string) (*runner.BootOutcome, []byte, []byte, error) {
		return nil, nil, nil, fmt.Errorf("%w: job %d %s: %s", ErrInfra, j.ID, strings.ToLower(j.Health), why)
	}
	out := &runner.BootOutcome{Elapsed: elapsed}
	switch {
	case j.Health == "Complete" && l.Done:
		out.Why = "QEMU exited"
	case j.Health == "Complete" && l.MonitorTimedOut && guest:
		out.Stopped, out.Why = true, fmt.Sprintf("no output on the console for %s (LAVA connection timeout)", max(spec.Silence, spec.Boot))
	case j.Health == "Incomplete" && l.ErrorType == "LAVATimeout" && guest:
		out.Stopped, out.Why = true, "LAVA timeout: "+l.ErrorMsg
	case j.Health == "Incomplete" && l.ErrorType == "Infrastructure" && l.ErrorMsg == "Connection closed" && guest:
		out.Why = "QEMU exited"
	case j.Health == "Complete":
		return infra("finished without the suite's end marker or guest output")
	case j.Health == "Canceled":
		return infra("canceled")
	case l.ErrorType != "":
		return infra(fmt.Sprintf("%s error: %s", l.ErrorType, l.ErrorMsg))
	case j.FailureComment != "":
		return infra(j.FailureComment)
	default:
		return infra("no result in the job log")
	}
	console, results := runner.SplitConsole(l.Target)
	return out, console, results, nil
}

// guestOutput reports whether the kernel printed on the console: init's
// hello, or a line of the kernel's (a firmware banner alone is not a boot).
func guestOutput(l *jobLog) bool {
	if l.Hello {
		return true
	}
	for _, line := range strings.Split(string(l.Target), "\n") {
		if strings.HasPrefix(line, "[") && strings.Contains(line, "]") || strings.Contains(line, "Linux version") ||
			strings.Contains(line, "Kernel panic") {
			return true
		}
	}
	return false
}
