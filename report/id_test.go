package report

import (
	"strings"
	"testing"
)

// lockFinding is an interprocedural finding as the sleep rule reports it.
func lockFinding(shift int) Finding {
	at := func(n int) string { return itoa(n + shift) }
	return Finding{
		Rule: "sleep-in-atomic", Category: "sleep-in-atomic", Severity: SeverityRisk, Patch: 1,
		File: "drivers/tty/n_gsm.c", Func: "gsm_send", Line: 741 + shift, Key: "timer_setup()",
		Message:     "gsm_send() may sleep now (mutex_lock()) but gsm_dlci_t1() calls it in atomic context (softirq context)",
		Explanation: "mutex_lock(&gsm->tx_mutex) (drivers/tty/n_gsm.c:" + at(741) + ") takes a mutex",
		Evidence: []string{
			"drivers/tty/n_gsm.c:" + at(2090) + ": timer_setup(&dlci->t1, gsm_dlci_t1, 0);",
			"drivers/tty/n_gsm.c:" + at(805) + ": gsm_send(gsm, addr, 1, control);",
			"drivers/tty/n_gsm.c:" + at(741) + ": mutex_lock(&gsm->tx_mutex);",
		},
		Chain: []Step{
			{Func: "gsm_dlci_alloc", File: "drivers/tty/n_gsm.c", Line: 2090 + shift, What: "registered by timer_setup(&dlci->t1, gsm_dlci_t1, 0)"},
			{Func: "gsm_send", File: "drivers/tty/n_gsm.c", Line: 741 + shift, What: "mutex_lock(&gsm->tx_mutex)"},
		},
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestFindingIDStable(t *testing.T) {
	base := lockFinding(0)
	id := FindingID(&base)
	if !ValidID(id) {
		t.Fatalf("id %q is not valid", id)
	}
	same := []struct {
		name string
		f    func() Finding
	}{
		{"lines moved", func() Finding { return lockFinding(37) }},
		{"other patch of the series", func() Finding { f := lockFinding(0); f.Patch = 3; return f }},
		{"message reworded", func() Finding { f := lockFinding(0); f.Message = "other words"; return f }},
		{"explanation reworded", func() Finding { f := lockFinding(0); f.Explanation = "x"; return f }},
		{"white space", func() Finding {
			f := lockFinding(0)
			f.Evidence[2] = "drivers/tty/n_gsm.c:741:   mutex_lock(&gsm->tx_mutex);  "
			return f
		}},
		{"severity", func() Finding { f := lockFinding(0); f.Severity = SeverityNote; return f }},
	}
	for _, tc := range same {
		f := tc.f()
		if got := FindingID(&f); got != id {
			t.Errorf("%s: id %s, want %s", tc.name, got, id)
		}
	}
	differ := []struct {
		name string
		f    func() Finding
	}{
		{"rule", func() Finding { f := lockFinding(0); f.Rule = "wakeup"; return f }},
		{"category", func() Finding { f := lockFinding(0); f.Category = "other"; return f }},
		{"function", func() Finding { f := lockFinding(0); f.Func = "gsm_command"; return f }},
		{"file", func() Finding { f := lockFinding(0); f.File = "drivers/tty/n_gsm2.c"; return f }},
		{"object", func() Finding { f := lockFinding(0); f.Key = "gsm->tx_lock"; return f }},
		{"evidence", func() Finding {
			f := lockFinding(0)
			f.Evidence[1] = "drivers/tty/n_gsm.c:806: gsm_send(gsm, addr, 0, control);"
			return f
		}},
		{"removed lines", func() Finding { f := lockFinding(0); f.Old = []string{"-\tspin_lock(&gsm->tx_lock);"}; return f }},
	}
	for _, tc := range differ {
		f := tc.f()
		if got := FindingID(&f); got == id {
			t.Errorf("%s changed but the id did not (%s)", tc.name, id)
		}
	}
}

func TestFindingIDWithoutEvidence(t *testing.T) {
	f := Finding{Rule: "wakeup", Category: "lost-wakeup", File: "fs/pipe.c", Func: "pipe_write",
		Message: "new early return in pipe_write() may skip the wake-up of pipe->rd_wait at line 512"}
	g := f
	g.Line, g.Message = 90, "new early return in pipe_write() may skip the wake-up of pipe->rd_wait at line 530"
	if FindingID(&f) != FindingID(&g) {
		t.Error("a line number in the message changes the id of a finding without evidence")
	}
	g.Message = "new early return in pipe_write() may skip the wake-up of pipe->wr_wait at line 530"
	if FindingID(&f) == FindingID(&g) {
		t.Error("another object in the message gives the same id")
	}
}

func TestNormEvidence(t *testing.T) {
	for in, want := range map[string]string{
		"drivers/tty/n_gsm.c:741: mutex_lock(&gsm->tx_mutex);": "drivers/tty/n_gsm.c: mutex_lock(&gsm->tx_mutex);",
		"+\tmutex_lock(&pipe->mutex);":                         "mutex_lock(&pipe->mutex);",
		"-\tspin_lock(&x);":                                    "spin_lock(&x);",
		"kernel/a.c:12 f(): calls g() (kernel/b.h:3:7)":        "kernel/a.c f(): calls g() (kernel/b.h)",
		"f() still wakes it at line 77 (wake_up(&q))":          "f() still wakes it at line (wake_up(&q))",
		"CPU 0: f()          | CPU 1: the sleeper":             "CPU 0: f() | CPU 1: the sleeper",
		"skb->len = 2;":                                        "skb->len = 2;",
		"a = b:12;":                                            "a = b:12;",
	} {
		if got := normEvidence(in); got != want {
			t.Errorf("normEvidence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAssignIDs(t *testing.T) {
	dup := lockFinding(0)
	dup.Line = 800 // the same check on the same evidence, reported twice
	r := &Report{Patches: []PatchReport{
		{Number: 1, Findings: []Finding{lockFinding(0), dup}},
		{Number: 2, Findings: []Finding{{Rule: "wakeup", File: "fs/pipe.c", Func: "pipe_read", Message: "m"}}},
	}}
	AssignIDs(r)
	base := FindingID(&dup)
	ids := []string{r.Patches[0].Findings[0].ID, r.Patches[0].Findings[1].ID, r.Patches[1].Findings[0].ID}
	if ids[0] != base || ids[1] != base+"-2" {
		t.Errorf("ids %v, want %s and %s-2", ids, base, base)
	}
	for _, id := range ids {
		if !ValidID(id) {
			t.Errorf("invalid id %q", id)
		}
	}
	// Again after the first finding left the report: nothing changes.
	r.Patches[0].Findings = r.Patches[0].Findings[1:]
	AssignIDs(r)
	if got := r.Patches[0].Findings[0].ID; got != base+"-2" {
		t.Errorf("id changed to %s after AssignIDs again", got)
	}
	if f, p := r.FindByID(strings.ToUpper(base) + "-2"); f == nil || p.Number != 1 {
		t.Errorf("FindByID: %v %v", f, p)
	}
	if f, _ := r.FindByID("000000000000"); f != nil {
		t.Errorf("FindByID found %+v for an unknown id", f)
	}
}

func TestValidID(t *testing.T) {
	for s, want := range map[string]bool{
		"0123456789ab": true, "0123456789ab-2": true, "0123456789AB": false,
		"0123456789a": false, "0123456789abc": false, "0123456789ab-": false, "": false,
	} {
		if got := ValidID(s); got != want {
			t.Errorf("ValidID(%q) = %v", s, got)
		}
	}
}

// TestAssignIDsManyDuplicates: findings sharing one base id get the base,
// then -2, -3, ... in order, skipping the suffixes already set, and a
// report of many such findings (a 10,000-part series of one edit) takes
// moments (a search from -2 for each was quadratic in them: minutes).
func TestAssignIDsManyDuplicates(t *testing.T) {
	base := FindingID(ptr(lockFinding(0)))
	tests := []struct {
		name   string
		preset map[int]string // finding index -> its id before AssignIDs
		n      int
		want   map[int]string // finding index -> the id it must get
	}{
		{"none preset", nil, 5, map[int]string{0: base, 1: base + "-2", 4: base + "-5"}},
		{"a suffix preset", map[int]string{3: base + "-3"}, 5,
			map[int]string{0: base, 1: base + "-2", 2: base + "-4", 3: base + "-3", 4: base + "-5"}},
		{"the base preset last", map[int]string{2: base}, 3, map[int]string{0: base + "-2", 1: base + "-3", 2: base}},
		{"20000 findings", nil, 20000, map[int]string{0: base, 19999: base + "-20000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := make([]Finding, tt.n)
			for i := range fs {
				fs[i] = lockFinding(0)
				fs[i].ID = tt.preset[i]
			}
			r := &Report{Patches: []PatchReport{{Number: 1, Findings: fs}}}
			AssignIDs(r)
			seen := map[string]bool{}
			for i, f := range r.Patches[0].Findings {
				if seen[f.ID] {
					t.Fatalf("id %s given twice", f.ID)
				}
				seen[f.ID] = true
				if w, ok := tt.want[i]; ok && f.ID != w {
					t.Errorf("finding %d: id %s, want %s", i, f.ID, w)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
