package reply

import (
	"bytes"
	"net/mail"
	"strings"
	"testing"

	amail "github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// FuzzMailBytes feeds hostile subjects, names, trailer values and report
// text into Compose: the mail must parse, keep CRLF line endings, and
// carry no header the bot did not write.
func FuzzMailBytes(f *testing.F) {
	f.Add("[PATCH] x: y", "Jane Dev", "jane@example.org", "Jane <jane@example.org>", "v6.1", "msg@id")
	f.Add("a\r\nBcc: v@x", "Evil\r\nBcc: v@x", "e@x\r\nBcc: v@x", "\"q\" <a@b>, c@d", "v\n1", "<a>\r\n<b>")
	f.Add(strings.Repeat("ä", 300), "Ünïcode Nämé", "u@example.org", "Name (comment) <n@x.org> # 5.4+", strings.Repeat("t", 2000), "id")
	f.Fuzz(func(t *testing.T, subject, name, addr, trailer, tree, msgid string) {
		m := &amail.Message{MessageID: msgid, From: amail.Address{Name: name, Addr: addr},
			Subject:  amail.ParseSubject(subject),
			To:       []amail.Address{{Name: name, Addr: addr}},
			Trailers: []amail.Trailer{{Key: "Signed-off-by", Value: trailer}, {Key: "Cc", Value: trailer}},
			Diff:     "diff --git a/x b/x\n"}
		s := &series.Series{ID: msgid, Version: 1, Total: 1, Patches: []*series.Patch{{Msg: m, Number: 1}}}
		r := &report.Report{Total: 1, Patches: []report.PatchReport{{Number: 1, Subject: subject, MessageID: msgid,
			Findings: []report.Finding{{Rule: tree, Severity: report.SeverityRisk, File: tree, Message: subject, Evidence: []string{trailer}}},
			Stable:   &report.StableReport{Reason: subject, Trees: []report.TreeResult{{Name: tree, BuildErrors: []string{trailer}, Build: "failed", Applied: true}}}}}}
		mails, err := Compose(r, s, sashaOptions())
		if err != nil {
			return
		}
		for _, ml := range mails {
			raw := ml.Bytes()
			if bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\n")) ||
				bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\r")) {
				t.Fatal("bare CR or LF")
			}
			msg, err := mail.ReadMessage(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("unparseable: %v\n%s", err, raw)
			}
			allowed := map[string]bool{"From": true, "To": true, "Cc": true, "Subject": true, "Date": true, "Message-Id": true,
				"In-Reply-To": true, "References": true, "Mime-Version": true, "Content-Type": true,
				"Content-Transfer-Encoding": true, "Auto-Submitted": true, "X-Autosel-Bot": true}
			for k := range msg.Header {
				if !allowed[k] {
					t.Fatalf("unexpected header %q in\n%s", k, raw)
				}
			}
			for _, h := range []string{"To", "Cc"} {
				if msg.Header.Get(h) == "" {
					continue
				}
				if _, err := msg.Header.AddressList(h); err != nil {
					t.Fatalf("%s does not parse: %v\n%s", h, err, raw)
				}
			}
		}
	})
}
