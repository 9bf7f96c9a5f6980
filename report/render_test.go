package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sampleReports covers every part the renderers print: a series with an
// interprocedural risk finding, a note, notes, a review patch, a malformed
// patch, input errors, stable and VM results; and a bare single patch.
func sampleReports() []*Report {
	date := time.Date(2023, 1, 10, 8, 30, 0, 0, time.UTC)
	return []*Report{
		{
			SeriesID: "20230110083000.1-1-zhanghongchen@loongson.cn",
			Title:    "watch_queue: refactor post_one_notification",
			Subject:  "[PATCH v5 1/2] watch_queue: refactor post_one_notification",
			Author:   "Hongchen Zhang <zhanghongchen@loongson.cn>",
			Version:  5,
			Total:    2,
			Date:     date,
			Notes:    []string{"patch-only analysis (no --tree): callers were not checked"},
			Patches: []PatchReport{
				{
					Number:    1,
					Subject:   "[PATCH v5 1/2] watch_queue: refactor post_one_notification",
					MessageID: "20230110083000.1-1-zhanghongchen@loongson.cn",
					Files:     []string{"fs/pipe.c", "include/linux/watch_queue.h", "kernel/watch_queue.c"},
					Funcs:     []string{"fs/pipe.c:free_pipe_info", "kernel/watch_queue.c:post_one_notification", "kernel/watch_queue.c:remove_watch_from_object"},
					Findings:  []Finding{},
				},
				{
					Number:    2,
					Subject:   "[PATCH v5 2/2] pipe: use __pipe_{lock,unlock} instead of spinlock",
					MessageID: "20230110083000.1-2-zhanghongchen@loongson.cn",
					Files:     []string{"fs/pipe.c", "include/linux/pipe_fs_i.h", "kernel/watch_queue.c"},
					Funcs:     []string{"fs/pipe.c:pipe_read", "fs/pipe.c:pipe_write", "kernel/watch_queue.c:post_one_notification"},
					Findings: []Finding{
						{
							Rule: "sleep-in-atomic", Severity: SeverityRisk, Patch: 2,
							File: "kernel/watch_queue.c", Func: "post_one_notification", Line: 129,
							Key:      "pipe->mutex",
							Message:  "__pipe_lock() may sleep (mutex_lock) but post_one_notification() is called under RCU and a spinlock",
							Evidence: []string{"+\t__pipe_lock(pipe);"},
							Old:      []string{"-\tspin_lock_irq(&pipe->rd_wait.lock);"},
							Chain: []Step{
								{Func: "remove_watch_from_object", File: "kernel/watch_queue.c", Line: 556, What: "rcu_read_lock()"},
								{Func: "remove_watch_from_object", File: "kernel/watch_queue.c", Line: 583, What: "calls post_one_notification()"},
								{Func: "post_one_notification", File: "kernel/watch_queue.c", Line: 129, What: "calls __pipe_lock()"},
								{Func: "__pipe_lock", File: "include/linux/pipe_fs_i.h", Line: 250, What: "mutex_lock_nested() may sleep"},
							},
							Explanation: "A sleeping lock is taken in a function that is reached with the RCU read lock held; sleeping there is a bug (\"BUG: sleeping function called from invalid context\" with CONFIG_DEBUG_ATOMIC_SLEEP). Keep a spinlock here or move the notification out of the RCU section.",
						},
						{
							Rule: "wakeup-changed", Severity: SeverityNote, Patch: 2,
							File: "fs/pipe.c", Func: "pipe_write", Line: 500,
							Message:   "the ring head is now updated without the wait queue lock",
							NeedsTree: true,
						},
					},
					Notes: []string{"sleep-in-atomic: callers of post_one_notification() need a tree"},
				},
				{
					Number: 2, InReview: true,
					Subject:   "Re: [PATCH v5 2/2] pipe: use __pipe_{lock,unlock} instead of spinlock",
					MessageID: "review-1@example.org",
					Error:     "message <review-1@example.org>: body line 31: malformed diff: invalid line operation: '\\t'",
				},
			},
			Errors: []InputError{{Source: "seeds.mbox", Line: 420, MessageID: "junk@example.org", Err: "malformed MIME: missing boundary"}},
			Stable: &StableReport{
				Relevant: "all",
				Trees: []TreeResult{
					{Name: "v6.1.192", Applied: true, Build: "ok"},
					{Name: "v5.4.35", Dependencies: []Commit{{SHA: "a8f2f31d7b8e3c1f5a6b7c8d9e0f1a2b3c4d5e6f", Subject: "pipe: make pipe writes always wake up readers"}}},
				},
			},
			VM: &VMReport{
				Tree: "v6.1.192", Build: "ok",
				Tests: []VMTest{
					{Name: "pipe-two-readers", Baseline: "pass", Patched: "hang", Regression: true, Splat: "INFO: task reader:77 blocked for more than 10 seconds.\n"},
					{Name: "pipe-token-ring", Baseline: "pass", Patched: "pass", Detail: "ctxsw/transfer 1.02 -> 1.01 (noise)"},
				},
			},
		},
		{
			SeriesID: "single@example.org",
			Title:    "epoll: use init_wait",
			Subject:  "[PATCH] epoll: use init_wait",
			Author:   "A U Thor <author@example.org>",
			Version:  1,
			Total:    1,
			Patches: []PatchReport{{
				Number: 1, Subject: "[PATCH] epoll: use init_wait", MessageID: "single@example.org",
				Files: []string{"fs/eventpoll.c"}, Funcs: []string{"fs/eventpoll.c:ep_poll"},
			}},
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./report -update and review):\n%s", name, got)
	}
}

func TestWriteTextGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteText(&buf, sampleReports()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"[PATCH v5 x/2] watch_queue: refactor post_one_notification\n",
		"risk: sleep-in-atomic: kernel/watch_queue.c:129 post_one_notification(): ",
		"  kernel/watch_queue.c:556 remove_watch_from_object(): rcu_read_lock()\n",
		"    +\t__pipe_lock(pipe);\n",
		"  fs/pipe.c: pipe_read(), pipe_write()\n",
		"[PATCH] epoll: use init_wait\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q", want)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing space in %q", l)
		}
	}
	golden(t, "reports.txt.golden", buf.Bytes())
}

func TestWriteJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, sampleReports()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d JSON lines, want one per series (2)", len(lines))
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if m["schema"] != SchemaID {
			t.Errorf("line %d: schema %v", i+1, m["schema"])
		}
		// Round trip into the Go types.
		var r Report
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.SeriesID != sampleReports()[i].SeriesID {
			t.Errorf("round trip lost the series id: %q", r.SeriesID)
		}
	}
	// The review patch had nil lists: they must be [] not null.
	if strings.Contains(lines[0], `"files":null`) || strings.Contains(lines[0], `"findings":null`) {
		t.Error("nil lists written as null")
	}
	golden(t, "reports.jsonl.golden", buf.Bytes())
}

func TestSeriesTag(t *testing.T) {
	tests := []struct {
		r    Report
		want string
	}{
		{Report{Subject: "[PATCH v5 0/2] x"}, "[PATCH v5 x/2]"},
		{Report{Subject: "[PATCH AUTOSEL 5.5 542/542] pipe: x"}, "[PATCH AUTOSEL 5.5 x/542]"},
		{Report{Subject: "[RFC PATCH net-next v2 3/7] x"}, "[RFC PATCH net-next v2 x/7]"},
		{Report{Subject: "[PATCH] x"}, "[PATCH]"},
		{Report{Subject: "plain subject", Version: 3, Total: 4}, "[PATCH v3 x/4]"},
		{Report{Subject: "Re: x", Version: 1, Total: 1}, "[PATCH]"},
	}
	for _, tc := range tests {
		if got := tc.r.SeriesTag(); got != tc.want {
			t.Errorf("SeriesTag(%q) = %q, want %q", tc.r.Subject, got, tc.want)
		}
	}
}
