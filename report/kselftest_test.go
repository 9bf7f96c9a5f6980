package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// kselftestVM is a VM section with kernel selftest results next to the
// suite: one TAP point regressed, one skipped.
func kselftestVM() *VMReport {
	return &VMReport{Tree: "linux", Build: "ok", Status: VMRegression, Summary: "1 regression(s)", Regressions: 1,
		Kselftests: []string{"futex: kernel/futex/core.c: the futex syscalls are implemented here (table)",
			"timers: dropped, over the time budget of 1m0s (~120s)"},
		Tests: []VMTest{
			{Name: "pipe_two_readers", Baseline: "pass", Patched: "pass"},
			{Name: "kselftest/futex/run.sh", Suite: "kselftest", Baseline: "pass", Patched: "fail", Regression: true,
				Reason: "exited with status 1; not ok: futex_wait shared"},
			{Name: "kselftest/futex/run.sh: 7.1", Suite: "kselftest", Baseline: "pass", Patched: "fail", Regression: true,
				Reason: "not ok: futex_wait returned: -1 Invalid argument", BaselineReason: "ok: futex_wait"},
			{Name: "kselftest/futex/run.sh: 8.1", Suite: "kselftest", Baseline: "pass", Patched: "pass"},
			{Name: "kselftest/futex/run.sh: 8.2", Suite: "kselftest", Baseline: "skip", Patched: "skip"},
		}}
}

func TestKselftestText(t *testing.T) {
	for _, brief := range []bool{false, true} {
		text := kselftestVM().TextWith(VMTextOptions{Brief: brief})
		for _, want := range []string{
			"Kernel selftests (tools/testing/selftests of the tree, chosen by the files the patch touches):",
			"    futex: kernel/futex/core.c: the futex syscalls are implemented here (table)",
			"    timers: dropped, over the time budget",
			"Kernel selftest results: baseline 3 pass, 1 skip; patched 1 pass, 2 fail, 1 skip",
			"kselftest/futex/run.sh: 7.1",
			"not ok: futex_wait returned: -1 Invalid argument",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("brief=%v: no %q in:\n%s", brief, want, text)
			}
		}
	}
}

func TestKselftestMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, &Report{VM: kselftestVM()}, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"Kernel selftests, chosen by the files the patch touches:",
		"- futex: kernel/futex/core.c: the futex syscalls are implemented here (table)",
		"Kernel selftest results: baseline 3 pass, 1 skip; patched 1 pass, 2 fail, 1 skip",
		"| `kselftest/futex/run.sh: 7.1` | pass | fail **regression** | not ok: futex\\_wait returned: -1 Invalid argument |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
}

func TestKselftestKCIDB(t *testing.T) {
	vm := kselftestVM()
	var buf bytes.Buffer
	if err := WriteKCIDB(&buf, vm, KCIDBOptions{Patches: [][]byte{[]byte("a")}}); err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := kcidbSchema(t).Validate(doc); err != nil {
		t.Fatalf("does not validate: %v", err)
	}
	d := KCIDB(vm, KCIDBOptions{Patches: [][]byte{[]byte("a")}})
	got := map[string]KCIDBTest{}
	for _, kt := range d.Tests {
		if kt.BuildID == d.Builds[1].ID {
			got[kt.Path] = kt
		}
	}
	for path, status := range map[string]string{
		"autosel.pipe_two_readers":   "PASS",
		"kselftest.futex.run_sh":     "FAIL",
		"kselftest.futex.run_sh.7_1": "FAIL",
		"kselftest.futex.run_sh.8_1": "PASS",
		"kselftest.futex.run_sh.8_2": "SKIP",
	} {
		kt, ok := got[path]
		if !ok || kt.Status != status {
			t.Errorf("%s: %+v (have %v)", path, kt, keys(got))
			continue
		}
		if strings.HasPrefix(path, "kselftest.") && kt.Misc["suite"] != "kselftest" {
			t.Errorf("%s: misc %v", path, kt.Misc)
		}
	}
	if kt := got["kselftest.futex.run_sh.7_1"]; kt.Misc["regression"] != true || kt.Comment != "not ok: futex_wait returned: -1 Invalid argument" {
		t.Error("regression not marked")
	}
}

func keys(m map[string]KCIDBTest) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestConfirmedFinding: a finding confirmed in the VM says so, with the
// kernel report, in the text (and so the reply) and in Markdown.
func TestConfirmedFinding(t *testing.T) {
	f := Finding{Rule: "sleep-in-atomic", Severity: SeverityRisk, File: "kernel/watch_queue.c", Func: "remove_watch_from_object", Line: 470,
		Message: "mutex_lock() under rcu_read_lock()",
		Confirmed: &Confirmation{Test: "kselftest/watch_queue/watch_test", Kind: "sleep-in-atomic", Function: "remove_watch_from_object",
			Excerpt: "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580\nCall Trace:\n remove_watch_from_object+0x125/0x2b0"}}
	var buf bytes.Buffer
	if err := WriteText(&buf, []*Report{{Subject: "x", Patches: []PatchReport{{Number: 1, Findings: []Finding{f}}}}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"confirmed in a VM: sleep-in-atomic report with remove_watch_from_object() on its stack while kselftest/watch_queue/watch_test ran (patched kernel):",
		"    BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text: no %q in:\n%s", want, buf.String())
		}
	}
	md := FindingMarkdown(&f)
	if !strings.Contains(md, "**Confirmed in a VM**: sleep-in-atomic report with `remove_watch_from_object()` on its stack") ||
		!strings.Contains(md, "BUG: sleeping function called") {
		t.Errorf("markdown:\n%s", md)
	}
	f.Confirmed = nil
	if md := FindingMarkdown(&f); strings.Contains(md, "Confirmed") {
		t.Errorf("unconfirmed finding says confirmed:\n%s", md)
	}
}
