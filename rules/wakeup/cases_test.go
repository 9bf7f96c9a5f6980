package wakeup

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// TestCases runs the case files in testdata/cases (see rulestest.Case);
// go test -update rewrites their WANT lines.
func TestCases(t *testing.T) {
	rulestest.RunCases(t, "testdata/cases", New)
}
