package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/report"
)

const seed000AsSent = "../../testdata/damaged/000-pipe-exclusive-autosel-as-sent.mbox"

// andreiID is the Message-ID of Andrei Vagin's reply with the quick fix.
const andreiID = "CANaxB-zjYecWpjMoX6dXY3B5HtVu8+G9npRnaX2FnTvp9XucTw@mail.gmail.com"

// TestCheckDamagedSeed: seed 000 as the list delivered it (Gmail turned
// the tabs of Andrei's quick fix into spaces and wrapped two lines) gives
// the quick fix the same analysis as the repaired seed does, patch-only
// and on the 6.1 tree, with a note that the diff was recovered.
func TestCheckDamagedSeed(t *testing.T) {
	trees := []string{""}
	if !testing.Short() {
		trees = append(trees, testkernel.Dir(t))
	}
	for _, tree := range trees {
		args := []string{"check", "--format", "json"}
		if tree != "" {
			args = append(args, "--tree", tree)
		}
		_, damagedOut, stderr := runCLI(t, "", append(args, seed000AsSent)...)
		if strings.Contains(stderr, "malformed") {
			t.Errorf("tree %q: damaged diff rejected: %s", tree, stderr)
		}
		_, repairedOut, _ := runCLI(t, "", append(args, seed000)...)
		got, want := andreiPatch(t, damagedOut), andreiPatch(t, repairedOut)
		if got == nil || want == nil {
			t.Fatalf("tree %q: quick fix not analysed: %v %v", tree, got, want)
		}
		if got.Error != "" {
			t.Errorf("tree %q: quick fix error %s", tree, got.Error)
		}
		if strings.Join(got.Funcs, " ") != strings.Join(want.Funcs, " ") || strings.Join(got.Funcs, " ") != "fs/pipe.c:pipe_read" {
			t.Errorf("tree %q: funcs %v, want %v", tree, got.Funcs, want.Funcs)
		}
		if fp(got.Findings) != fp(want.Findings) {
			t.Errorf("tree %q: findings differ from the repaired seed's:\n%s\nvs\n%s", tree, fp(got.Findings), fp(want.Findings))
		}
		recovered := false
		for _, n := range got.Notes {
			if strings.HasPrefix(n, "recovered a mail-damaged diff: re-joined 2 line-wrapped lines") {
				recovered = true
			}
		}
		if !recovered {
			t.Errorf("tree %q: no recovery note in %q", tree, got.Notes)
		}
		for _, n := range want.Notes {
			if strings.Contains(n, "recovered") {
				t.Errorf("tree %q: the repaired seed is noted as recovered: %q", tree, n)
			}
		}
	}
}

// andreiPatch returns the report of Andrei's quick fix.
func andreiPatch(t *testing.T, out string) *report.PatchReport {
	t.Helper()
	for _, r := range decodeReports(t, out) {
		for i := range r.Patches {
			if r.Patches[i].MessageID == andreiID {
				return &r.Patches[i]
			}
		}
	}
	return nil
}

// fp is a findings fingerprint: rule, severity, place, key and message.
func fp(fs []report.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(string(f.Severity) + " " + f.Rule + " " + f.File + ":" + strconv.Itoa(f.Line) + " " + f.Key + " " + f.Message + "\n")
	}
	return b.String()
}
