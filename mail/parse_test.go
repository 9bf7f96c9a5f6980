package mail

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crlf turns a test message written with "\n" into wire form.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

const patchBody = "Fix the reader wakeup.\n\nCc: stable@vger.kernel.org # 5.5\nSigned-off-by: A U Thor <author@example.com>\n---\n fs/pipe.c | 2 +-\n\n" + simpleDiff + "-- \n2.25.1\n"

func TestParseMIME(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte(patchBody))
	b64patch := base64.StdEncoding.EncodeToString([]byte(simpleDiff))
	tests := []struct {
		name string
		raw  string
		// checks
		body       string // substring of Body
		diff       string // exact Diff ("" = none)
		commitMsg  string // substring of CommitMsg
		notInBody  string
		inline     bool
		subject    string
		fromName   string
		to         int
		stableTags int
	}{
		{name: "plain 8bit",
			raw:  "From: A U Thor <author@EXAMPLE.com>\nTo: linux-kernel@vger.kernel.org\nSubject: [PATCH] pipe: fix\nMessage-ID: <p1@x>\nDate: Tue, 18 Feb 2020 01:51:06 -0800\n\n" + patchBody,
			body: "Fix the reader wakeup.", diff: simpleDiff, commitMsg: "Signed-off-by: A U Thor", subject: "pipe: fix", fromName: "A U Thor", to: 1, stableTags: 1},
		{name: "base64 body",
			raw:  "From: a@example.com\nSubject: [PATCH] x\nMessage-ID: <p2@x>\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n" + b64 + "\n",
			body: "Fix the reader wakeup.", diff: simpleDiff, commitMsg: "Fix the reader wakeup.", subject: "x", stableTags: 1},
		{name: "quoted-printable windows-1252",
			raw:  "From: David Howells <dhowells@redhat.com>\nSubject: Re: [PATCH] x\nIn-Reply-To: <a@b>\nMessage-ID: <p3@x>\nMIME-Version: 1.0\nContent-Type: text/plain; charset=WINDOWS-1252\nContent-Transfer-Encoding: quoted-printable\n\nIt=92s fine=\n, really.\n" + strings.ReplaceAll(simpleDiff, "\t", "=09"),
			body: "It’s fine, really.", diff: simpleDiff, inline: true, subject: "x"},
		{name: "latin-1 body and encoded headers",
			raw:  "From: =?iso-8859-1?q?Andr=E9?= <andre@example.com>\nSubject: =?iso-8859-1?q?=5BPATCH=5D_caf=E9?=\nMessage-ID: <p4@x>\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: 8bit\n\nna\xefve caf\xe9\n",
			body: "naïve café", subject: "café", fromName: "André"},
		{name: "CRLF",
			raw:  crlf("From: a@example.com\nSubject: [PATCH] x\nMessage-ID: <p5@x>\n\n" + patchBody),
			body: "Fix the reader wakeup.\n\nCc:", diff: simpleDiff, commitMsg: "Signed-off-by", subject: "x", stableTags: 1},
		{name: "patch as text/x-patch attachment",
			raw: "From: a@example.com\nSubject: [PATCH] x\nMessage-ID: <p6@x>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BB\"\n\n--BB\nContent-Type: text/plain\n\nSee attached.\nSigned-off-by: A <a@example.com>\n--BB\nContent-Type: text/x-patch; name=\"fix.patch\"\nContent-Disposition: attachment; filename=\"fix.patch\"\nContent-Transfer-Encoding: base64\n\n" +
				b64patch + "\n--BB--\n",
			body: "See attached.", diff: simpleDiff, commitMsg: "Signed-off-by: A", subject: "x"},
		{name: "patch as application/octet-stream *.diff",
			raw: "From: a@example.com\nSubject: [PATCH] x\nMessage-ID: <p7@x>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BB\"\n\n--BB\nContent-Type: text/plain\n\nhi\n--BB\nContent-Type: application/octet-stream; name=\"0001-fix.diff\"\nContent-Transfer-Encoding: base64\n\n" +
				b64patch + "\n--BB\nContent-Type: application/pdf; name=\"x.pdf\"\nContent-Transfer-Encoding: base64\n\nJVBERi0=\n--BB--\n",
			body: "hi", diff: simpleDiff, notInBody: "%PDF", subject: "x"},
		{name: "html alternative skipped",
			raw:  "From: a@example.com\nSubject: hello\nMessage-ID: <p8@x>\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=\"BB\"\n\n--BB\nContent-Type: text/plain\n\nplain text\n--BB\nContent-Type: text/html\n\n<p>html</p>\n--BB--\n",
			body: "plain text", notInBody: "<p>", subject: "hello"},
		{name: "format=flowed delsp",
			raw:  "From: a@example.com\nSubject: Re: x\nMessage-ID: <p9@x>\nContent-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\n\nThis is a long  \nline.\n> quoted  \n> more\n>  stuffed\n-- \nsig\n",
			body: "This is a long line.\n> quoted more\n>  stuffed\n-- \nsig\n", subject: "x"},
		{name: "format=flowed",
			raw:  "From: a@example.com\nSubject: Re: x\nMessage-ID: <p10@x>\nContent-Type: text/plain; charset=utf-8; format=flowed\n\nWhere is the usage \nscenario?\n>> -\tspin_lock_irq(&pipe->rd_wait.lock);\n> \n",
			body: "Where is the usage scenario?\n>> -\tspin_lock_irq(&pipe->rd_wait.lock);\n> \n", subject: "x"},
		{name: "unknown charset still readable",
			raw:  "From: a@example.com\nSubject: x\nMessage-ID: <p11@x>\nContent-Type: text/plain; charset=x-no-such-charset\n\nascii text\n",
			body: "ascii text", subject: "x"},
		{name: "raw 8-bit latin-1 headers",
			raw:  "From: Andr\xe9 <andre@example.com>\nSubject: [PATCH] caf\xe9\nMessage-ID: <p14@x>\n\nbody\n",
			body: "body", subject: "café", fromName: "André"},
		{name: "several To fields",
			raw:  "From: a@example.com\nTo: b@example.com\nTo: c@example.com, d@example.com\nSubject: x\nMessage-ID: <p12@x>\n\nbody\n",
			body: "body", subject: "x", to: 3},
		{name: "lenient From with masked address",
			raw:  "From: Sasha Levin <sashal@xxxxxxxxxx>\nSubject: x\nMessage-ID: <p13@x>\n\nbody\n",
			body: "body", subject: "x", fromName: "Sasha Levin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(strings.NewReader(tt.raw))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !strings.Contains(m.Body, tt.body) {
				t.Errorf("Body = %q, want it to contain %q", m.Body, tt.body)
			}
			if strings.Contains(m.Body, "\r") {
				t.Errorf("Body has CR: %q", m.Body)
			}
			if tt.notInBody != "" && strings.Contains(m.Body, tt.notInBody) {
				t.Errorf("Body = %q, must not contain %q", m.Body, tt.notInBody)
			}
			if m.Diff != tt.diff {
				t.Errorf("Diff = %q, want %q", m.Diff, tt.diff)
			}
			if tt.diff != "" {
				lines := strings.Split(m.Body, "\n")
				if m.DiffLine < 1 || !strings.HasPrefix(lines[m.DiffLine-1], "diff --git") {
					t.Errorf("DiffLine %d does not point at the diff", m.DiffLine)
				}
			}
			if !strings.Contains(m.CommitMsg, tt.commitMsg) || strings.Contains(m.CommitMsg, "diff --git") {
				t.Errorf("CommitMsg = %q, want it to contain %q and no diff", m.CommitMsg, tt.commitMsg)
			}
			if m.InlineReview != tt.inline {
				t.Errorf("InlineReview = %v, want %v", m.InlineReview, tt.inline)
			}
			if m.Subject.Title != tt.subject {
				t.Errorf("Subject.Title = %q, want %q", m.Subject.Title, tt.subject)
			}
			if tt.fromName != "" && m.From.Name != tt.fromName {
				t.Errorf("From.Name = %q, want %q", m.From.Name, tt.fromName)
			}
			if tt.to != 0 && len(m.To) != tt.to {
				t.Errorf("To = %v, want %d addresses", m.To, tt.to)
			}
			if got := len(StableTags(m)); got != tt.stableTags {
				t.Errorf("StableTags = %d, want %d", got, tt.stableTags)
			}
		})
	}
}

func TestParseHeaders(t *testing.T) {
	raw := "From: A U Thor <author@EXAMPLE.COM>\nTo: x@example.com\nCc: Y <y@example.com>, z@example.com\n" +
		"Date: Fri, 14 Feb 2020 11:03:12 -0500\nMessage-Id: <20200214154854.6746-542-sashal@kernel.org>\n" +
		"In-Reply-To: <20200214154854.6746-1-sashal@kernel.org>\nReferences: <r1@x>\n <r2@x>\n" +
		"Subject: [PATCH AUTOSEL 5.5 542/542] pipe: use exclusive waits when\n reading or writing\n" +
		"List-Id: <linux-kernel.vger.kernel.org>\nAuto-Submitted: auto-generated\n\n" +
		"From: Linus Torvalds <torvalds@linux-foundation.org>\n\n[ Upstream commit 0ddad21d3e99c743a3aa473121dc5561679e26bb ]\n\nText.\n"
	m, err := Parse(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	check := func(name, got, want string) {
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	check("MessageID", m.MessageID, "20200214154854.6746-542-sashal@kernel.org")
	check("InReplyTo", m.InReplyTo, "20200214154854.6746-1-sashal@kernel.org")
	check("References", strings.Join(m.References, ","), "r1@x,r2@x")
	check("From", m.From.Addr, "author@example.com")
	check("Author", m.Author.Addr, "torvalds@linux-foundation.org")
	check("Cc", m.Cc[0].Addr+","+m.Cc[1].Addr, "y@example.com,z@example.com")
	check("Date", m.Date.Format("2006-01-02T15:04:05Z07:00"), "2020-02-14T16:03:12Z")
	check("Subject.Autosel", m.Subject.Autosel, "5.5")
	check("Subject.Title", m.Subject.Title, "pipe: use exclusive waits when reading or writing")
	check("ListID", m.ListID, "<linux-kernel.vger.kernel.org>")
	check("AutoSubmitted", m.AutoSubmitted, "auto-generated")
	check("UpstreamCommit", m.UpstreamCommit, "0ddad21d3e99c743a3aa473121dc5561679e26bb")
	check("CommitMsg", m.CommitMsg, "[ Upstream commit 0ddad21d3e99c743a3aa473121dc5561679e26bb ]\n\nText.\n")
}

func TestParseSyntheticID(t *testing.T) {
	raw := "From: a@example.com\nSubject: x\n\nbody\n"
	m1, err := Parse(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	m2, _ := Parse(strings.NewReader(raw))
	m3, _ := Parse(strings.NewReader(raw + "more\n"))
	if !strings.HasSuffix(m1.MessageID, "@"+SyntheticIDDomain) || len(m1.MessageID) != 64+1+len(SyntheticIDDomain) {
		t.Errorf("synthetic id %q", m1.MessageID)
	}
	if m1.MessageID != m2.MessageID {
		t.Errorf("synthetic id not deterministic: %q vs %q", m1.MessageID, m2.MessageID)
	}
	if m1.MessageID == m3.MessageID {
		t.Errorf("different content, same synthetic id %q", m1.MessageID)
	}
}

func TestParseErrors(t *testing.T) {
	big := strings.Repeat("A", 2048)
	tests := []struct {
		name   string
		raw    string
		limit  int64
		is     error
		id     string
		substr string
	}{
		{name: "no From", raw: "Subject: x\nMessage-ID: <e1@x>\n\nbody\n", is: ErrNoFrom, id: "e1@x"},
		{name: "garbage From", raw: "From: ,,,\nMessage-ID: <e2@x>\n\nbody\n", is: ErrNoFrom, id: "e2@x"},
		{name: "empty angle From", raw: "From: <>\nMessage-ID: <e7@x>\n\nbody\n", is: ErrNoFrom, id: "e7@x"},
		{name: "list of names From", raw: "From: Jane; <jane>\nMessage-ID: <e9@x>\n\nbody\n", is: ErrNoFrom, id: "e9@x"},
		{name: "unclosed angle From", raw: "From: Jane <jane\nMessage-ID: <e8@x>\n\nbody\n", is: ErrNoFrom, id: "e8@x"},
		{name: "binary junk", raw: "\x00\x01\x02\xff\xfe garbage without headers\x00\n\x89PNG\r\n", substr: "header"},
		{name: "decoded body over the cap", raw: "From: a@example.com\nMessage-ID: <e3@x>\n\n" + big + "\n", limit: 1024, is: ErrTooLarge, id: "e3@x"},
		{name: "raw message over the cap", raw: "From: a@example.com\nMessage-ID: <e4@x>\nContent-Type: text/html\n\n" + strings.Repeat(big, 1024), limit: 1024, is: ErrTooLarge, id: "e4@x"},
		{name: "truncated multipart", raw: "From: a@example.com\nMessage-ID: <e5@x>\nContent-Type: multipart/mixed; boundary=\"BB\"\n\n--BB\nContent-Type: text/plain\n\nhalf a mess", substr: "unexpected EOF", id: "e5@x"},
		{name: "bad base64 in a part", raw: "From: a@example.com\nMessage-ID: <e6@x>\nContent-Transfer-Encoding: base64\n\n!!!! not base64 ****\n", substr: "decoding", id: "e6@x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parser{MaxBodySize: tt.limit}
			m, err := p.Parse(strings.NewReader(tt.raw))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", m)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v, want %v", err, tt.is)
			}
			if tt.substr != "" && !strings.Contains(err.Error(), tt.substr) {
				t.Errorf("error %q does not mention %q", err, tt.substr)
			}
			var pe *ParseError
			if tt.id != "" && (!errors.As(err, &pe) || pe.MessageID != tt.id || !strings.Contains(err.Error(), tt.id)) {
				t.Errorf("error %v does not name Message-ID %s", err, tt.id)
			}
		})
	}
}

// fuzzSeeds returns the seed mbox messages, split, as fuzz corpus entries.
func fuzzSeeds(f *testing.F) [][]byte {
	var out [][]byte
	files, _ := filepath.Glob("../testdata/seeds/*.mbox")
	for _, fn := range files {
		fh, err := os.Open(fn)
		if err != nil {
			f.Fatal(err)
		}
		_ = ReadMbox(fh, func(raw []byte, line int) error {
			out = append(out, raw)
			return nil
		})
		fh.Close()
	}
	return out
}

func FuzzParse(f *testing.F) {
	for _, raw := range fuzzSeeds(f) {
		f.Add(raw)
	}
	f.Add([]byte("From: a@example.com\nContent-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: multipart/mixed; boundary=y\n\n--y\n\nhi\n--y--\n--x--\n"))
	f.Add([]byte("From: a@example.com\nContent-Type: text/plain; format=flowed; delsp=yes\n\n> a \n>b \n \n"))
	f.Add([]byte("From: =?utf-8?b?w6k=?= <a@b>\nSubject: =?x-unknown?q?abc?=\n\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p := Parser{MaxBodySize: 1 << 16}
		m, err := p.Parse(strings.NewReader(string(raw)))
		if err != nil {
			return
		}
		if m.MessageID == "" {
			t.Fatal("empty Message-ID")
		}
		if int64(len(m.Body)) > p.MaxBodySize+maxParts {
			t.Fatalf("body %d bytes over the cap", len(m.Body))
		}
		if m.Diff != "" && !strings.Contains(m.Body, m.Diff) {
			t.Fatal("Diff is not part of Body")
		}
		if strings.Contains(m.Body, "\r\n") {
			t.Fatal("CRLF left in Body")
		}
	})
}

// TestParseSenderWithoutDomain: git format-patch writes the author of a
// commit that has no address as it is; the message is still a patch,
// from a stand-in address in .invalid that keeps the local part.
func TestParseSenderWithoutDomain(t *testing.T) {
	tests := []struct {
		from, name, addr string
	}{
		{"Stephen M. Cameron <StephenM.Cameron>", "Stephen M. Cameron", "StephenM.Cameron@autosel-bot.invalid"},
		{`"Jane Dev" <jane>`, "Jane Dev", "jane@autosel-bot.invalid"},
		{"<root>", "root", "root@autosel-bot.invalid"},
		{"MAILER-DAEMON", "MAILER-DAEMON", "MAILER-DAEMON@autosel-bot.invalid"},
		{"=?UTF-8?q?J=C3=B6rg?= <joerg>", "Jörg", "joerg@autosel-bot.invalid"},
		// An encoded newline or escape is no line break in a header.
		{"=?UTF-8?q?Ja=0Ane=1B?= <jane>", "Ja ne", "jane@autosel-bot.invalid"},
		// A local part that is no plain dot-atom is not kept.
		{"Odd <a b>", "Odd", UnknownSender},
		{"Odd <a..b>", "Odd", UnknownSender},
		{"Jane Dev", "Jane Dev", UnknownSender},
		// git quotes a name with a comma; a comma outside quotes is a list.
		{`"Doe, Jane" <jane>`, "Doe, Jane", "jane@autosel-bot.invalid"},
		{"Odd <jörg>", "Odd", UnknownSender},
		{"Odd <.a>", "Odd", UnknownSender},
		{"Odd <a.>", "Odd", UnknownSender},
		{"Odd <" + strings.Repeat("a", 65) + ">", "Odd", UnknownSender},
		{"Odd <" + strings.Repeat("a", 64) + ">", "Odd", strings.Repeat("a", 64) + "@autosel-bot.invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.from, func(t *testing.T) {
			raw := "From: " + tt.from + "\nSubject: [PATCH] x: y\nMessage-ID: <s@x>\n\nbody\n"
			m, err := Parse(strings.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			if m.From.Name != tt.name || m.From.Addr != tt.addr || m.Author != m.From {
				t.Errorf("From = %+v (Author %+v), want %q <%s>", m.From, m.Author, tt.name, tt.addr)
			}
		})
	}
}

// TestAuthorsRead: every place an author is read reads it the same way
// (senderOf): an in-body From line naming no address, a sender's name
// with control characters, a plain patch file's author without one.
func TestAuthorsRead(t *testing.T) {
	m, err := Parse(strings.NewReader("From: Sasha Levin <sashal@kernel.org>\nSubject: [PATCH] x\nMessage-ID: <ib@x>\n\n" +
		"From: Stephen M. Cameron <StephenM.Cameron>\n\nText.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Author.Name != "Stephen M. Cameron" || m.Author.Addr != "StephenM.Cameron@autosel-bot.invalid" || strings.Contains(m.CommitMsg, "From:") {
		t.Errorf("in-body From: author %+v, commit message %q", m.Author, m.CommitMsg)
	}
	m, err = Parse(strings.NewReader("From: =?UTF-8?q?Ja=0Ane=1B?= <jane@x.org>\nSubject: [PATCH] x\nMessage-ID: <cc@x>\n\nText.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.From.Name != "Ja ne" || m.From.Addr != "jane@x.org" {
		t.Errorf("control characters: From %+v", m.From)
	}
	show := "commit 0ddad21d3e99c743a3aa473121dc5561679e26bb\nAuthor: Stephen M. Cameron <StephenM.Cameron>\n" +
		"Date:   Thu Dec 16 13:01:03 2010 -0600\n\n    hpsa: fix\n\ndiff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n"
	m, err = Parse(strings.NewReader(show))
	if err != nil {
		t.Fatal(err)
	}
	if m.Author.Name != "Stephen M. Cameron" || m.Author.Addr != "StephenM.Cameron@autosel-bot.invalid" {
		t.Errorf("git show: author %+v", m.Author)
	}
}
