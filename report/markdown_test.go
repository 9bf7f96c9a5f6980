package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestMarkdownGolden(t *testing.T) {
	var buf bytes.Buffer
	for i, r := range sampleReports() {
		if i > 0 {
			buf.WriteString("\n---\n\n")
		}
		if err := WriteMarkdown(&buf, r, MarkdownOptions{Heading: "autosel-bot review", Notes: true}); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "reports.md.golden", buf.Bytes())
}

func TestMarkdownInlineAndEscaping(t *testing.T) {
	r := sampleReports()[0]
	var buf bytes.Buffer
	inline := func(f *Finding) bool { return f.Severity == SeverityRisk }
	if err := WriteMarkdown(&buf, r, MarkdownOptions{Inline: inline}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{"(see the line comment)", "`kernel/watch_queue.c:129`", `\_\_pipe\_lock()`} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "<details>") && strings.Contains(md, "sleep-in-atomic` `kernel/watch_queue.c:129` `post_one_notification()`: \\_\\_pipe\\_lock() may sleep (mutex\\_lock) but post\\_one\\_notification() is called under RCU and a spinlock\n\n") {
		t.Errorf("inline finding rendered in full:\n%s", md)
	}
	if strings.Contains(md, "**note**") {
		t.Errorf("notes shown without Notes:\n%s", md)
	}
	for _, tt := range []struct{ in, want string }{
		{"a`b", "``a`b``"},
		{"`x`", "`` `x` ``"},
		{"plain", "`plain`"},
	} {
		if got := code(tt.in); got != tt.want {
			t.Errorf("code(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := mdEscape("<script>*x*</script>\nnext"); got != `\<script\>\*x\*\</script\> next` {
		t.Errorf("mdEscape: %q", got)
	}
}

func TestPageLink(t *testing.T) {
	f := &Finding{ID: "0123456789ab"}
	for _, tc := range []struct {
		name string
		f    *Finding
		link func(string) string
		want string
	}{
		{"nil", f, nil, ""},
		{"empty", f, func(string) string { return "" }, ""},
		{"no id", &Finding{}, func(id string) string { return "https://x/finding/" + id }, ""},
		{"url", f, func(id string) string { return "https://x/finding/" + id }, "[finding page](<https://x/finding/0123456789ab>)"},
		{"markup", f, func(id string) string { return "https://x/a b<c>/" + id }, "[finding page](<https://x/a%20b%3Cc%3E/0123456789ab>)"},
	} {
		if got := PageLink(tc.f, tc.link); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMarkdownForAuthor: written for a patch author, the notes of a
// patch-only analysis say what was not checked instead of naming a flag.
func TestMarkdownForAuthor(t *testing.T) {
	r := &Report{
		Notes: []string{"patch-only analysis (no --tree): callers were not checked", "series note"},
		Patches: []PatchReport{{Subject: "[PATCH] x", Notes: []string{
			"sleep-in-atomic: callers of f were not checked: no --tree",
			"wakeup: other wakers need a tree to be checked (--tree)",
		}}},
	}
	for _, tc := range []struct {
		forAuthor bool
		flag      bool
	}{{false, true}, {true, false}} {
		var b strings.Builder
		WriteMarkdown(&b, r, MarkdownOptions{ForAuthor: tc.forAuthor})
		out := b.String()
		if got := strings.Contains(out, "--tree"); got != tc.flag {
			t.Errorf("ForAuthor=%v: mentions --tree = %v, want %v:\n%s", tc.forAuthor, got, tc.flag, out)
		}
		if tc.forAuthor {
			if n := strings.Count(out, PatchOnlyForAuthor); n != 2 {
				t.Errorf("ForAuthor: the author sentence appears %d times, want once per list (2):\n%s", n, out)
			}
			if !strings.Contains(out, "series note") {
				t.Errorf("ForAuthor dropped a note without a flag:\n%s", out)
			}
		}
	}
}
