package rules

import (
	"encoding/json"
	"strings"
	"testing"
)

func dumpFindings(t *testing.T, fs []interface{}) {}

func TestSleepSeed002Explore(t *testing.T) {
	patch := seedPatch(t, "002-watch-queue-v5.mbox", 2)
	fs, notes := runSleepPatch(t, patch, "", nil)
	b, _ := json.MarshalIndent(fs, "", "  ")
	t.Logf("patch-only:\n%s\nnotes: %s", b, strings.Join(notes, "\n"))
	dir, ix := kernelIndexFor(t)
	fs, notes = runSleepPatch(t, patch, dir, ix)
	b, _ = json.MarshalIndent(fs, "", "  ")
	t.Logf("tree:\n%s\nnotes: %s", b, strings.Join(notes, "\n"))
}
