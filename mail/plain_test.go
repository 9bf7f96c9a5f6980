package mail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlainPatches: patch files that are not mail (or are mail with
// git format-patch --base) parse into a patch Message.
func TestPlainPatches(t *testing.T) {
	tests := []struct {
		file       string
		title      string
		from       string
		date       string
		commitMsg  []string
		trailers   []string
		base       string
		diffPrefix string
	}{
		{"dep3.patch", "pipe: wake every reader when the last writer goes away", "author@example.org", "2024-01-02",
			[]string{"the others never see EOF.\n\nWake them all.", "Origin: upstream"}, nil, "", "--- a/fs/pipe.c"},
		{"git-show.txt", "pipe: use exclusive waits when reading or writing", "torvalds@linux-foundation.org", "2019-12-11",
			[]string{"This makes the pipe code use separate wait-queues"}, []string{"Signed-off-by"}, "", "diff --git a/fs/pipe.c"},
		{"quilt-index.patch", "diff of linux/fs/pipe.c", "unknown@autosel-bot.invalid", "0001-01-01", nil, nil, "", "Index: linux/fs/pipe.c"},
		{"format-patch-base.patch", "pipe: comment", "author@example.org", "2024-01-02", nil, []string{"Signed-off-by"},
			"383708845c6008c606714ac2c1d47f444bbbb68c", "diff --git a/fs/pipe.c"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			msgs, errs := Load(t.Context(), []string{filepath.Join("testdata", tc.file)}, nil)
			if len(errs) > 0 || len(msgs) != 1 {
				t.Fatalf("%d messages, errors %v", len(msgs), errs)
			}
			m := msgs[0]
			if !m.Subject.Patch || m.Subject.Title != tc.title {
				t.Errorf("subject %+v, want a patch titled %q", m.Subject, tc.title)
			}
			if m.Author.Addr != tc.from {
				t.Errorf("author %+v, want %s", m.Author, tc.from)
			}
			if got := m.Date.Format("2006-01-02"); got != tc.date {
				t.Errorf("date %s, want %s", got, tc.date)
			}
			for _, s := range tc.commitMsg {
				if !strings.Contains(m.CommitMsg, s) {
					t.Errorf("commit message %q lacks %q", m.CommitMsg, s)
				}
			}
			var keys []string
			for _, tr := range m.Trailers {
				keys = append(keys, tr.Key)
			}
			for _, k := range tc.trailers {
				if !strings.Contains(strings.Join(keys, " "), k) {
					t.Errorf("trailers %v lack %s", keys, k)
				}
			}
			if m.BaseCommit != tc.base {
				t.Errorf("base commit %q, want %q", m.BaseCommit, tc.base)
			}
			if !strings.HasPrefix(m.Diff, tc.diffPrefix) || !strings.HasSuffix(m.Diff, "+ *  linux/fs/pipe.c (pipes)\n") {
				t.Errorf("diff %q", m.Diff)
			}
			if strings.Contains(m.Diff, "base-commit") {
				t.Errorf("base-commit line in the diff")
			}
		})
	}
}

// TestPlainNotMail: mail is not taken for a plain patch, and a plain patch
// is stable (same bytes, same Message-ID).
func TestPlainNotMail(t *testing.T) {
	mailText := "From: a@b.org\nSubject: [PATCH] x\nMessage-ID: <x@b.org>\n\n---\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
	if parsePlain([]byte(mailText)) != nil {
		t.Error("mail parsed as a plain patch")
	}
	data, err := os.ReadFile("testdata/dep3.patch")
	if err != nil {
		t.Fatal(err)
	}
	a, b := parsePlain(data), parsePlain(data)
	if a == nil || a.MessageID != b.MessageID {
		t.Errorf("Message-IDs differ or not parsed: %v %v", a, b)
	}
	// A Subject/From quilt header without DEP-3 fields is mail-like and
	// left to the mail parser.
	if parsePlain([]byte("From: a@b.org\nSubject: x\n\n---\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")) != nil {
		t.Error("quilt mail header parsed as DEP-3")
	}
	// Ended by "---" instead, it is no mail (a mail reader fails on the
	// "---" line): the quilt header's subject, tag and all, names it.
	m := parsePlain([]byte("Subject: [PATCH] pipe: wake all readers\n---\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"))
	if m == nil {
		t.Fatal("quilt header ended by --- not parsed")
	}
	if m.Subject.Title != "pipe: wake all readers" || m.Subject.Raw != "[PATCH] pipe: wake all readers" || m.Diff == "" {
		t.Errorf("subject %+v, diff %q", m.Subject, m.Diff)
	}
	// A commit title in brackets is no tag of its own: git show output
	// still gets one.
	show := "commit 0123456789abcdef0123456789abcdef01234567\nAuthor: A <a@b.org>\nDate:   Mon Jan 1 00:00:00 2024 +0000\n\n    [SCSI] fix a thing\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
	if m := parsePlain([]byte(show)); m == nil || !m.Subject.Patch || m.Subject.Raw != "[PATCH] [SCSI] fix a thing" {
		t.Errorf("git show subject: %+v", m)
	}
}

// TestCoverLetterBaseCommit: git format-patch --cover-letter --base puts
// the base-commit in the cover letter.
func TestCoverLetterBaseCommit(t *testing.T) {
	raw := "From: a@b.org\nSubject: [PATCH 0/2] x\nMessage-ID: <c@b.org>\n\nBlurb.\n\nA (2):\n  x\n  y\n\n lib/x.c | 2 +-\n\nbase-commit: 0123456789abcdef0123456789abcdef01234567\n-- \n2.43.0\n"
	m, err := Parse(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if m.BaseCommit != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("base commit %q", m.BaseCommit)
	}
	quoted := strings.Replace(raw, "Subject: [PATCH 0/2] x", "Subject: Re: [PATCH 0/2] x", 1)
	quoted = strings.Replace(quoted, "base-commit:", "> base-commit:", 1)
	if m, _ := Parse(strings.NewReader(quoted)); m.BaseCommit != "" {
		t.Errorf("quoted base-commit taken: %q", m.BaseCommit)
	}
}

// TestGitLog: "git log -p" output is one patch per commit.
func TestGitLog(t *testing.T) {
	one, err := os.ReadFile("testdata/git-show.txt")
	if err != nil {
		t.Fatal(err)
	}
	second := strings.Replace(string(one), "0ddad21d3e99c743a3aa473121dc5561679e26bb", "1111111111111111111111111111111111111111", 1)
	second = strings.Replace(second, "pipe: use exclusive waits when reading or writing", "pipe: second change", 1)
	log := string(one) + "\n" + second
	dir := t.TempDir()
	p := filepath.Join(dir, "log.txt")
	os.WriteFile(p, []byte(log), 0o644)
	msgs, errs := Load(t.Context(), []string{p}, nil)
	if len(errs) > 0 || len(msgs) != 2 {
		t.Fatalf("%d messages, %v", len(msgs), errs)
	}
	if msgs[0].Subject.Title != "pipe: use exclusive waits when reading or writing" || msgs[1].Subject.Title != "pipe: second change" {
		t.Errorf("titles %q, %q", msgs[0].Subject.Title, msgs[1].Subject.Title)
	}
	for _, m := range msgs {
		if !strings.HasSuffix(m.Diff, "(pipes)\n") || strings.Contains(m.Diff, "commit ") {
			t.Errorf("diff %q", m.Diff)
		}
	}
}
