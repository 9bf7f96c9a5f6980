package eval

import "testing"

const testDiff = `diff --git a/f.c b/f.c
--- a/f.c
+++ b/f.c
@@ -1 +1 @@
-a
+b
`

func TestParsePatchFile(t *testing.T) {
	tests := []struct {
		name, in                     string
		subject, upstream, msgPrefix string
		header, value                string
	}{
		{
			name: "format-patch",
			in: "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n" +
				"From: A U Thor <a@example.org>\nDate: Tue, 1 Jan 2019 00:00:00 +0000\n" +
				"Subject: [PATCH v2 3/4] foo: fix the\n thing\n\ncommit 89abcdef0123456789abcdef0123456789abcdef upstream.\n\nBody.\n---\n f.c | 2 +-\n\n" + testDiff,
			subject: "foo: fix the thing", upstream: "89abcdef0123456789abcdef0123456789abcdef",
			msgPrefix: "commit 89abcdef", header: "From", value: "A U Thor <a@example.org>",
		},
		{
			name: "DEP-3",
			in: "From: Ben <b@example.org>\nDate: Sun, 2 Feb 2020 00:00:00 +0000\nSubject: mm: bar\n" +
				"Origin: https://git.kernel.org/linus/fedcba9876543210fedcba9876543210fedcba98\nBug-Debian: https://bugs.debian.org/1\n\nWhy.\n\n" + testDiff,
			subject: "mm: bar", upstream: "fedcba9876543210fedcba9876543210fedcba98", msgPrefix: "Why.",
			header: "Bug-Debian", value: "https://bugs.debian.org/1",
		},
		{
			name:    "quilt description",
			in:      "Description: Disable foo by default\nAuthor: Someone\nForwarded: not-needed\n---\n" + testDiff,
			subject: "Disable foo by default", msgPrefix: "---", header: "Forwarded", value: "not-needed",
		},
		{
			name:    "no header",
			in:      "Make the thing work.\n\n" + testDiff,
			subject: "Make the thing work.", msgPrefix: "Make the thing",
		},
		{
			name: "bare diff",
			in:   testDiff,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePatchFile(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if p.Diff != testDiff {
				t.Errorf("diff = %q", p.Diff)
			}
			if p.Subject != tc.subject {
				t.Errorf("subject = %q, want %q", p.Subject, tc.subject)
			}
			if got := p.UpstreamID(); got != tc.upstream {
				t.Errorf("upstream = %q, want %q", got, tc.upstream)
			}
			if len(p.Message) < len(tc.msgPrefix) || p.Message[:len(tc.msgPrefix)] != tc.msgPrefix {
				t.Errorf("message = %q, want prefix %q", p.Message, tc.msgPrefix)
			}
			if tc.header != "" && p.Headers[tc.header] != tc.value {
				t.Errorf("header %s = %q, want %q", tc.header, p.Headers[tc.header], tc.value)
			}
		})
	}
	if _, err := ParsePatchFile("just words\n"); err == nil {
		t.Error("no error for a file without a diff")
	}
}
