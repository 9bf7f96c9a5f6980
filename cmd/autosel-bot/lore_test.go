package main

import (
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/config"
	"github.com/autosel-bot/autosel-bot/lore/loretest"
	"github.com/autosel-bot/autosel-bot/report"
)

// TestCheckLore: check fetches a thread from a public-inbox server (a real
// public-inbox-httpd on loopback serving the seed threads) by Message-ID,
// by message URL, and by the URL of a reply, and analyses it like the
// mbox file.
func TestCheckLore(t *testing.T) {
	in := loretest.Start(t)
	for _, f := range []string{seed000, seed002} {
		in.DeliverMbox(t, f)
	}
	t.Setenv("AUTOSEL_BOT_CHECK_LORE_URL", in.URL)
	// Seed 002 patch-only has a risk (2/2 keeps a _locked wake-up without
	// the queue lock it stopped taking): check exits 1.
	_, fromFile, _ := runCLI(t, "", "check", "--format", "json", seed002)
	want := seriesIDs(t, fromFile)
	tests := []struct {
		name string
		args []string
		ids  []string
		code int
		err  string
	}{
		{"message-id", []string{"20230811010309.20196-2-zhanghongchen@loongson.cn"}, want, 1, ""},
		{"bracketed id", []string{"<20230811010309.20196-1-zhanghongchen@loongson.cn>"}, want, 1, ""},
		{"url", []string{in.URL + "20230811010309.20196-1-zhanghongchen@loongson.cn/"}, want, 1, ""},
		{"url of a reply", []string{in.URL + "CANaxB-zjYecWpjMoX6dXY3B5HtVu8+G9npRnaX2FnTvp9XucTw@mail.gmail.com/T/#u"}, []string{"20200214154854.6746-542-sashal@kernel.org"}, 1, ""},
		{"unknown id", []string{"nobody@example.org"}, nil, 2, "thread not found"},
		{"unknown id and a file", []string{"nobody@example.org", seed002}, want, 1, "nobody@example.org: lore: <nobody@example.org>: thread not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "", append([]string{"check", "--format", "json"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
			if tc.err != "" && !strings.Contains(stderr, tc.err) {
				t.Errorf("stderr %q lacks %q", stderr, tc.err)
			}
			if got := seriesIDs(t, out); strings.Join(got, " ") != strings.Join(tc.ids, " ") {
				t.Errorf("series %v, want %v", got, tc.ids)
			}
			// The same report, but for the command that reproduces it.
			cmdRE := regexp.MustCompile(`"command":"[^"]*"`)
			if tc.name == "message-id" && cmdRE.ReplaceAllString(out, "") != cmdRE.ReplaceAllString(fromFile, "") {
				t.Errorf("report of the fetched thread differs from the mbox file's:\n%s\nvs\n%s", out, fromFile)
			}
		})
	}
}

// seriesIDs reads the series IDs of a JSON Lines report.
func seriesIDs(t *testing.T, out string) []string {
	t.Helper()
	var ids []string
	for _, r := range decodeReports(t, out) {
		ids = append(ids, r.SeriesID)
	}
	return ids
}

// decodeReports reads a JSON Lines report.
func decodeReports(t *testing.T, out string) []report.Report {
	t.Helper()
	var rs []report.Report
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var r report.Report
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		rs = append(rs, r)
	}
	return rs
}

// TestThreadPatches: test --patch MESSAGE-ID takes the diffs of the
// thread's series in order from the public-inbox server.
func TestThreadPatches(t *testing.T) {
	in := loretest.Start(t)
	in.DeliverMbox(t, seed002)
	a := loadApp(t)
	cfg := a.cfg.Check
	cfg.LoreURL = in.URL
	ps, ok, err := threadPatches(t.Context(), cfg, "20230811010309.20196-2-zhanghongchen@loongson.cn")
	if !ok || err != nil || len(ps) != 2 {
		t.Fatalf("ok %v err %v, %d patches", ok, err, len(ps))
	}
	if !strings.Contains(ps[0].Name, "refactor post_one_notification (1/2)") || !strings.Contains(string(ps[1].Diff), "__pipe_lock") {
		t.Errorf("patches %q %q", ps[0].Name, ps[1].Name)
	}
	if _, ok, _ := threadPatches(t.Context(), cfg, seed002); ok {
		t.Error("a file taken for a thread reference")
	}
	if _, ok, err := threadPatches(t.Context(), cfg, "nobody@example.org"); !ok || err == nil {
		t.Errorf("unknown thread: ok %v err %v", ok, err)
	}
}

// loadApp returns an app with the built-in configuration loaded.
func loadApp(t *testing.T) *app {
	t.Helper()
	v, err := config.New()
	if err != nil {
		t.Fatal(err)
	}
	a := &app{v: v}
	if err := a.load(io.Discard); err != nil {
		t.Fatal(err)
	}
	return a
}
