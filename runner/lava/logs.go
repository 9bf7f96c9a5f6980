package lava

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// entry is one record of a LAVA job log.
type entry struct {
	Dt  string    `yaml:"dt"`
	Lvl string    `yaml:"lvl"`
	Msg yaml.Node `yaml:"msg"`
}

// jobLog is what the backend reads from a job log.
type jobLog struct {
	// Target is the device's serial output, one line per target record,
	// as the guest wrote it (LAVA's quote escaping undone).
	Target []byte
	// TargetLines counts the target records.
	TargetLines int
	// Hello and Done are set when init's markers are in the output.
	Hello, Done bool
	// ErrorType and ErrorMsg are the job's error (the "job" result case of
	// the lava suite), empty for a job that finished correctly.
	ErrorType, ErrorMsg string
	// JobResult is the "job" case's result (pass/fail), empty when the log
	// ends before it (lost dispatcher, cancellation).
	JobResult string
	// MonitorTimedOut is set when the monitor stopped on its connection
	// timeout (the guest was silent).
	MonitorTimedOut bool
}

// parseLog reads a LAVA job log (a YAML list of {dt, lvl, msg}).
func parseLog(data []byte) (*jobLog, error) {
	var entries []entry
	if err := yaml.Unmarshal(data, &entries); err != nil {
		// A log still being written may end mid-record: drop the last
		// line and retry once.
		if i := bytes.LastIndexByte(bytes.TrimRight(data, "\n"), '\n'); i > 0 {
			if err2 := yaml.Unmarshal(data[:i+1], &entries); err2 != nil {
				return nil, fmt.Errorf("lava: job log: %w", err)
			}
		} else {
			return nil, fmt.Errorf("lava: job log: %w", err)
		}
	}
	l := &jobLog{}
	var target bytes.Buffer
	for _, e := range entries {
		switch e.Lvl {
		case "target":
			var s string
			if e.Msg.Decode(&s) != nil {
				continue
			}
			// The dispatcher escapes every double quote of the output
			// with a backslash before logging it (ShellLogger).
			s = strings.ReplaceAll(s, `\"`, `"`)
			target.WriteString(s)
			target.WriteByte('\n')
			l.TargetLines++
			if strings.HasPrefix(s, helloMarker) {
				l.Hello = true
			}
			if strings.HasPrefix(s, doneMarker) {
				l.Done = true
			}
		case "results":
			var r struct {
				Case       string         `yaml:"case"`
				Definition string         `yaml:"definition"`
				Result     string         `yaml:"result"`
				ErrorType  string         `yaml:"error_type"`
				ErrorMsg   string         `yaml:"error_msg"`
				Extra      map[string]any `yaml:"extra"`
			}
			if e.Msg.Decode(&r) != nil || r.Definition != "lava" {
				continue
			}
			if r.Case == "job" {
				l.JobResult, l.ErrorType, l.ErrorMsg = r.Result, r.ErrorType, r.ErrorMsg
			}
		case "warning":
			var s string
			if e.Msg.Decode(&s) == nil && strings.Contains(s, "lava test monitoring has timed out") {
				l.MonitorTimedOut = true
			}
		}
	}
	l.Target = target.Bytes()
	return l, nil
}
