package report

import (
	"strings"
	"testing"
)

// TestPlainFindings: the mail form of findings (package reply's): every
// part of a finding, control characters stripped, evidence limited and
// cut, the web link only when Link gives one, blocks apart.
func TestPlainFindings(t *testing.T) {
	fs := []Finding{{
		Severity: SeverityRisk, Rule: "sleep", Category: "sleep-in-atomic",
		File: "kernel/x.c", Line: 98, Func: "post\x1b_one",
		ID: "0123456789ab", Message: "mutex_lock() under\nspin_lock()", Key: "&q->lock",
		Explanation: "A spinlock is held.",
		Old:         []string{"-\told();"},
		Evidence:    []string{"+\ta();", "+\tb();", "+\tc();", "+\t" + strings.Repeat("x", 120)},
		Chain:       []Step{{File: "kernel/y.c", Line: 7, Func: "caller", What: "takes the lock"}},
		NeedsTree:   true,
	}, {Severity: SeverityNote, Rule: "wakeup", Category: "lost-wakeup", File: "fs/pipe.c", Message: "m"}}
	got := PlainFindings(fs, PlainOptions{MaxLines: 2, Link: func(id string) string { return "https://a.example/f/" + id }})
	want := `[risk] sleep-in-atomic: kernel/x.c:98 post_one()
    Finding id: 0123456789ab
    Web: https://a.example/f/0123456789ab
    mutex_lock() under spin_lock()
    Object: &q->lock
    A spinlock is held.
    Before:
        -	old();
    Evidence:
        +	a();
        +	b();
        ... (2 more)
    Call chain:
        kernel/y.c:7 caller(): takes the lock
    (a kernel tree is needed to decide this: callers are outside the
    patch)

[note] lost-wakeup: fs/pipe.c
    m
`
	if got != want {
		t.Errorf("PlainFindings:\n%s\nwant:\n%s", got, want)
	}
	if all := PlainFindings(fs[:1], PlainOptions{}); !strings.Contains(all, CodeCutMarker) || strings.Contains(all, "Web:") {
		t.Errorf("no limit, no link:\n%s", all)
	}
	advice := strings.Repeat("word ", 20) + "end."
	got = PlainFindings(fs[:1], PlainOptions{NeedsTree: advice})
	if !strings.HasSuffix(got, "    word word word word word word word word word word word word word\n    word word word word word word word end.\n") {
		t.Errorf("needs-tree advice not wrapped at 68 under the finding:\n%s", got)
	}
}

func TestCodeLine(t *testing.T) {
	long := "+\t" + strings.Repeat("x", 120)
	tests := []struct {
		name, in, want string
	}{
		{"short", "+\tfoo();", "        +\tfoo();"},
		// 8 (indent) + 8 (tab) + 84 = 100 columns: kept whole.
		{"exactly 100", "+\t" + strings.Repeat("y", 84), "        +\t" + strings.Repeat("y", 84)},
		// 100 - 6 for the marker - 16 for indent and tab = 78 kept.
		{"long", long, "        +\t" + strings.Repeat("x", 78) + CodeCutMarker},
		{"spaces before the cut", "+" + strings.Repeat("ab ", 40), "        +" + strings.TrimRight(strings.Repeat("ab ", 29)[:85], " ") + CodeCutMarker},
		// Wide characters take two columns.
		{"wide", "+" + strings.Repeat("語", 60), "        +" + strings.Repeat("語", 42) + CodeCutMarker},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CodeLine("        ", tt.in)
			if got != tt.want {
				t.Errorf("CodeLine:\n got %q\nwant %q", got, tt.want)
			}
			if w := CodeColumns(got, 0); w > MaxCodeColumns {
				t.Errorf("%d columns, more than %d", w, MaxCodeColumns)
			}
		})
	}
}
