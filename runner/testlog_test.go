package runner

import (
	"strings"
	"sync/atomic"
	"testing"
)

// current is the running integration test, which receives the runner's
// log lines through testLogWriter (t.Log shows progress of long builds).
var current atomic.Pointer[testing.T]

type testLogWriter struct{}

func (testLogWriter) Write(p []byte) (int, error) {
	if t := current.Load(); t != nil {
		t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}
