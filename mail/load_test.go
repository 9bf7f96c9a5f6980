package mail

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func msgText(id, subject, body string) string {
	return "From: A <a@example.com>\nSubject: " + subject + "\nMessage-ID: <" + id + ">\nDate: Fri, 14 Feb 2020 11:03:12 -0500\n\n" + body
}

func TestReadMbox(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  []string // raw messages
		lines []int
	}{
		{"single message without separator", "A: 1\n\nbody\n", []string{"A: 1\n\nbody\n"}, []int{1}},
		{"format-patch", "From 0ddad21d3e99c743a3aa473121dc5561679e26bb Mon Sep 17 00:00:00 2001\nFrom: x\n\nb\n",
			[]string{"From: x\n\nb\n"}, []int{2}},
		{"two messages, mboxrd unescape",
			"From a@b Fri Feb 14 08:03:00 2020\nA: 1\n\n>From the start\n>>From nested\nFrom inside a line is fine\n\nFrom b@c Sat Feb 15 08:03:00 2020\nB: 2\n\nbody\n",
			[]string{"A: 1\n\nFrom the start\n>From nested\nFrom inside a line is fine\n", "B: 2\n\nbody\n"}, []int{2, 9}},
		{"body From line that is not a separator", "From a@b Fri Feb 14 08:03:00 2020\nA: 1\n\nFrom me to you\n\nFrom Linus\n",
			[]string{"A: 1\n\nFrom me to you\n\nFrom Linus\n"}, []int{2}},
		{"separator without a date", "From a@b\nA: 1\n\nx\n\nFrom b@c\nB: 2\n",
			[]string{"A: 1\n\nx\n", "B: 2\n"}, []int{2, 7}},
		{"CRLF", "From a@b Fri Feb 14 08:03:00 2020\r\nA: 1\r\n\r\nx\r\n\r\nFrom a@b Fri Feb 14 08:03:00 2020\r\nB: 2\r\n\r\ny\r\n",
			[]string{"A: 1\r\n\r\nx\r\n", "B: 2\r\n\r\ny\r\n"}, []int{2, 7}},
		{"truncated last message", "From a@b Fri Feb 14 08:03:00 2020\nA: 1\n\nx\n\nFrom a@b Fri Feb 14 08:03:00 2020\nB: 2",
			[]string{"A: 1\n\nx\n", "B: 2"}, []int{2, 7}},
		{"empty", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			var lines []int
			err := ReadMbox(strings.NewReader(tt.in), func(raw []byte, line int) error {
				got = append(got, string(raw))
				lines = append(lines, line)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("messages:\n got %q\nwant %q", got, tt.want)
			}
			for i := range lines {
				if i < len(tt.lines) && lines[i] != tt.lines[i] {
					t.Errorf("line[%d] = %d, want %d", i, lines[i], tt.lines[i])
				}
			}
		})
	}
}

func TestReadMboxCallbackError(t *testing.T) {
	stop := errors.New("stop")
	in := "From a@b Fri Feb 14 08:03:00 2020\nA: 1\n\nx\n\nFrom a@b Fri Feb 14 08:03:00 2020\nB: 2\n"
	n := 0
	err := ReadMbox(strings.NewReader(in), func([]byte, int) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err %v after %d calls, want stop after 1", err, n)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	patch := write("0001-fix.patch", "From 0ddad21d3e99c743a3aa473121dc5561679e26bb Mon Sep 17 00:00:00 2001\n"+msgText("fp@x", "[PATCH] fix", patchBody))
	bare := write("bare.eml", msgText("bare@x", "[PATCH] bare", patchBody))
	mbox := write("list.mbox",
		"From a@b Fri Feb 14 08:03:00 2020\n"+msgText("m1@x", "[PATCH 1/2] a", "one\n")+"\n"+
			"From a@b Fri Feb 14 08:03:00 2020\n"+"\x00\x01junk that is not a message\x00\n\n"+
			"From a@b Fri Feb 14 08:03:00 2020\n"+"Subject: no sender\nMessage-ID: <nofrom@x>\n\nx\n\n"+
			"From a@b Fri Feb 14 08:03:00 2020\n"+"From: a@example.com\nMessage-ID: <broken@x>\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\n\nhalf\n\n"+
			"From a@b Fri Feb 14 08:03:00 2020\n"+msgText("m2@x", "[PATCH 2/2] b", "two\n")+"\n"+
			"From a@b Fri Feb 14 08:03:00 2020\n"+"From: a@example.com\nSubject: cut")
	write("md/cur/1.host:2,S", msgText("md1@x", "x", "maildir cur\n"))
	write("md/new/2.host", msgText("md2@x", "y", "maildir new\n"))
	write("md/tmp/3.host", msgText("md3@x", "z", "still being delivered\n"))
	notMaildir := filepath.Join(dir, "empty")
	if err := os.Mkdir(notMaildir, 0o755); err != nil {
		t.Fatal(err)
	}
	stdin := strings.NewReader(msgText("stdin@x", "[PATCH] from stdin", patchBody))

	msgs, errs := Load(context.Background(), []string{patch, bare, mbox, filepath.Join(dir, "md"), "-", notMaildir, filepath.Join(dir, "missing")}, stdin)
	var ids []string
	for _, m := range msgs {
		ids = append(ids, m.MessageID)
	}
	// "cut" has From and Subject but no body: still a message (synthetic id).
	wantIDs := []string{"fp@x", "bare@x", "m1@x", "m2@x", "", "md1@x", "md2@x", "stdin@x"}
	if len(ids) != len(wantIDs) {
		t.Fatalf("ids = %q, want %q", ids, wantIDs)
	}
	for i, w := range wantIDs {
		if w != "" && ids[i] != w {
			t.Errorf("ids[%d] = %q, want %q", i, ids[i], w)
		}
	}
	if !strings.HasSuffix(ids[4], SyntheticIDDomain) {
		t.Errorf("truncated message id %q, want synthetic", ids[4])
	}
	if msgs[0].Diff == "" || msgs[0].Subject.Title != "fix" {
		t.Errorf("format-patch file not parsed: %+v", msgs[0])
	}
	// File names the file that held the message alone: not a message of
	// an mbox of several, nor of stdin.
	wantFiles := []string{patch, bare, "", "", "", filepath.Join(dir, "md/cur/1.host:2,S"), filepath.Join(dir, "md/new/2.host"), ""}
	for i, w := range wantFiles {
		if msgs[i].File != w {
			t.Errorf("message %d <%s>: File %q, want %q", i, msgs[i].MessageID, msgs[i].File, w)
		}
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		"list.mbox:10: message 2: reading header",
		"list.mbox:13: message 3: message <nofrom@x>: missing From header",
		"list.mbox:19: message 4: message <broken@x>:",
		"empty: directory is neither a Maildir",
		"missing: ",
	}
	if len(got) != len(want) {
		t.Fatalf("errors:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	// Source errors come first, then parse errors in input order.
	joined := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("no error containing %q in:\n%s", w, joined)
		}
	}
	for _, e := range errs {
		if strings.ContainsAny(e.Error(), "\x00\n\r") {
			t.Errorf("error text not sanitized: %q", e.Error())
		}
		if e.Unwrap() == nil {
			t.Errorf("InputError %v has no cause", e)
		}
	}
}

func TestLoadCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, errs := Load(ctx, []string{"-"}, strings.NewReader(msgText("c@x", "x", "y\n")))
	if len(errs) == 0 || !errors.Is(errs[0], context.Canceled) {
		t.Errorf("errs = %v, want context.Canceled", errs)
	}
}

func FuzzReadMbox(f *testing.F) {
	f.Add("From a@b Fri Feb 14 08:03:00 2020\nA: 1\n\n>From x\n\nFrom b@c Sat Feb 15 08:03:00 2020\nB: 2\n")
	f.Add("no separator at all\n")
	f.Add("\n\nFrom a@b\r\n\r\nFrom a@b\n")
	f.Fuzz(func(t *testing.T, in string) {
		last, total := 0, 0
		err := ReadMbox(strings.NewReader(in), func(raw []byte, line int) error {
			if line <= last {
				t.Fatalf("line %d after %d", line, last)
			}
			last = line
			total += len(raw)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if total > len(in) {
			t.Fatalf("%d bytes out of %d in", total, len(in))
		}
	})
}
