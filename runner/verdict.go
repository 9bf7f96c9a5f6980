package runner

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Verdict is a test's outcome on one kernel.
type Verdict string

// Verdicts, from best to worst (see rank).
const (
	Pass        Verdict = "pass"
	Fail        Verdict = "fail"
	Hang        Verdict = "hang"
	Crash       Verdict = "crash"
	NotRun      Verdict = "not-run"
	BootFailure Verdict = "boot-failure"
	InfraError  Verdict = "infra-error"
)

func (v Verdict) rank() int {
	switch v {
	case Pass:
		return 0
	case Fail:
		return 2
	case Hang:
		return 3
	case Crash:
		return 4
	case NotRun, Skip:
		return 1
	}
	return 5
}

// Worse reports whether v is worse than w.
func (v Verdict) Worse(w Verdict) bool { return v.rank() > w.rank() }

// MetricSeries is one metric over a test's runs.
type MetricSeries struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	Better string    `json:"better"` // "lower" or "higher"
	Values []float64 `json:"values"`
}

// RunResult is one run of a test.
type RunResult struct {
	Run     int           `json:"run"`
	Verdict Verdict       `json:"verdict"`
	Reason  string        `json:"reason,omitempty"`
	Elapsed time.Duration `json:"elapsed"`
	// Log are the test's {"log":...} lines.
	Log []string `json:"log,omitempty"`
	// Flaky marks a selftest run that failed only in TAP points known to
	// fail at random under TCG.
	Flaky bool `json:"flaky,omitempty"`
}

// TestResult is a test's result on one kernel, over all its runs.
type TestResult struct {
	Name string `json:"name"`
	// Verdict is the worst verdict of the runs.
	Verdict Verdict `json:"verdict"`
	// Reason explains the verdict (the worst run's reason).
	Reason  string         `json:"reason,omitempty"`
	Runs    []RunResult    `json:"runs"`
	Splats  []Splat        `json:"splats,omitempty"`
	Metrics []MetricSeries `json:"metrics,omitempty"`
	// Flaky marks a kernel selftest point the table knows to fail at
	// random under TCG: its change is never a regression.
	Flaky bool `json:"flaky,omitempty"`
}

// testLine is one JSON line printed by a suite program.
type testLine struct {
	Log    *string  `json:"log"`
	Metric string   `json:"metric"`
	Value  *float64 `json:"value"`
	Unit   string   `json:"unit"`
	Better string   `json:"better"`
	Result string   `json:"result"`
	Reason string   `json:"reason"`
}

// metricValue is one metric sample of a run.
type metricValue struct {
	name, unit, better string
	value              float64
}

// evalFrame turns one complete frame into a run result, its splats and
// metric samples.
func evalFrame(f *Frame, timeout time.Duration) (RunResult, []Splat, []metricValue) {
	rr := RunResult{Run: f.Run, Elapsed: f.Elapsed}
	var metrics []metricValue
	result, reason := "", ""
	for _, l := range f.Out {
		var tl testLine
		if err := json.Unmarshal([]byte(l), &tl); err != nil {
			rr.Log = append(rr.Log, l) // stray output (e.g. a libc message)
			continue
		}
		switch {
		case tl.Log != nil:
			rr.Log = append(rr.Log, *tl.Log)
		case tl.Metric != "" && tl.Value != nil:
			metrics = append(metrics, metricValue{tl.Metric, tl.Unit, tl.Better, *tl.Value})
		case tl.Result != "":
			result, reason = tl.Result, tl.Reason
		}
	}
	texts := make([]string, len(f.Kmsg))
	for i, k := range f.Kmsg {
		texts[i] = k.Text
	}
	splats := findSplats(texts)
	switch {
	case len(splats) > 0:
		rr.Verdict, rr.Reason = Crash, "kernel: "+splats[0].Title
	case f.Timeout:
		rr.Verdict, rr.Reason = Hang, fmt.Sprintf("no result after %s: killed", timeout)
		if f.Unreaped {
			rr.Reason += " (a task stayed stuck in the kernel after SIGKILL)"
		}
	case result == "hang":
		rr.Verdict, rr.Reason = Hang, reason
	case result == "fail":
		rr.Verdict, rr.Reason = Fail, reason
	case result == "pass" && f.Exit == 0:
		rr.Verdict, rr.Reason = Pass, reason
	case f.Signal != 0:
		rr.Verdict, rr.Reason = Fail, fmt.Sprintf("killed by signal %d", f.Signal)
	case f.Exit == 127:
		rr.Verdict, rr.Reason = Fail, "could not execute the test program"
	default:
		rr.Verdict, rr.Reason = Fail, fmt.Sprintf("exited with status %d without a result", f.Exit)
	}
	if f.Truncated {
		rr.Log = append(rr.Log, "(output truncated in the guest)")
	}
	return rr, splats, metrics
}

// addRun folds a run into a test result.
func (t *TestResult) addRun(rr RunResult, splats []Splat, metrics []metricValue) {
	if len(t.Runs) == 0 || rr.Verdict.Worse(t.Verdict) {
		t.Verdict, t.Reason = rr.Verdict, rr.Reason
	}
	t.Runs = append(t.Runs, rr)
	for _, s := range splats {
		dup := false
		for _, o := range t.Splats {
			if o.Title == s.Title {
				dup = true
			}
		}
		if !dup {
			t.Splats = append(t.Splats, s)
		}
	}
	for _, m := range metrics {
		found := false
		for i := range t.Metrics {
			if t.Metrics[i].Name == m.name {
				t.Metrics[i].Values = append(t.Metrics[i].Values, m.value)
				found = true
			}
		}
		if !found {
			t.Metrics = append(t.Metrics, MetricSeries{Name: m.name, Unit: m.unit, Better: m.better, Values: []float64{m.value}})
		}
	}
}

// vmEnd says how a VM run ended, for runs that have no frame.
type vmEnd struct {
	// stopped is set when the host stopped the VM (silence or deadline).
	stopped bool
	// why describes the stop.
	why string
}

// evalSuite builds the per-test results of one boot from the results
// channel and the console. Tests whose frame is missing get their verdict
// from the console section of the run that was going on (splat -> crash,
// host stop -> hang) or NotRun when they never started.
func evalSuite(ch *Channel, console []byte, tests []Test, runs func(Test) int, scale int, end vmEnd) []TestResult {
	lines := consoleLines(console)
	var out []TestResult
	for _, t := range tests {
		tr := TestResult{Name: t.Name}
		timeout := t.Timeout * time.Duration(scale)
		var points []TestResult
		for run := 0; run < runs(t); run++ {
			if f := ch.Frame(t.Name, run); f != nil && t.Kselftest {
				rr, splats, pts := evalKselftest(f, timeout, t.flaky)
				tr.addRun(rr, splats, nil)
				tr.Flaky = tr.Flaky || rr.Flaky
				for _, p := range pts {
					p.Name = t.Name + ": " + p.Name
					points = append(points, p)
				}
				continue
			} else if f != nil {
				rr, splats, metrics := evalFrame(f, timeout)
				tr.addRun(rr, splats, metrics)
				continue
			}
			rr := RunResult{Run: run}
			var splats []Splat
			if ch.Running == t.Name && ch.RunningRun == run || consoleSection(lines, t.Name, run) != nil {
				splats = findSplats(consoleSection(lines, t.Name, run))
				switch {
				case len(splats) > 0:
					rr.Verdict, rr.Reason = Crash, "kernel: "+splats[0].Title
				case end.stopped:
					rr.Verdict, rr.Reason = Hang, "the whole VM stopped responding during the test ("+end.why+")"
				default:
					rr.Verdict, rr.Reason = Crash, "the VM died during the test without a kernel report ("+end.why+")"
				}
			} else {
				rr.Verdict, rr.Reason = NotRun, "not run: the VM ended before this test"
			}
			tr.addRun(rr, splats, nil)
		}
		out = append(out, tr)
		out = append(out, points...)
	}
	return out
}

// bootSplats returns the reports the kernel printed before init ran the
// first test (boot frame, or console before the first marker).
func bootSplats(ch *Channel, console []byte) []Splat {
	if f := ch.Frame("boot", 0); f != nil {
		texts := make([]string, len(f.Kmsg))
		for i, k := range f.Kmsg {
			texts[i] = k.Text
		}
		return findSplats(texts)
	}
	var pre []string
	for _, l := range consoleLines(console) {
		if strings.Contains(l, "autosel: begin ") {
			break
		}
		pre = append(pre, l)
	}
	return findSplats(pre)
}
