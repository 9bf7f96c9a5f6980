package reply

import (
	"bytes"
	"net/mail"
	"strings"
	"testing"
	"time"
)

func TestWriteMbox(t *testing.T) {
	date := time.Date(2020, 5, 1, 2, 55, 29, 0, time.UTC)
	m := func(id, body string) *Mail {
		return &Mail{
			From: &mail.Address{Name: "bot", Address: "bot@example.org"}, To: []*mail.Address{{Address: "a@example.org"}},
			Subject: "Re: [PATCH] x", Date: date, MessageID: id, InReplyTo: "p@example.org", References: []string{"p@example.org"}, Body: body,
		}
	}
	var buf bytes.Buffer
	if err := WriteMbox(&buf, []*Mail{m("r1@example.org", "Hi\nFrom here on\n>From there\n"), m("r2@example.org", "no newline")}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"From bot@example.org Fri May  1 02:55:29 2020\nFrom: \"bot\" <bot@example.org>\n",
		"Message-ID: <r1@example.org>\nIn-Reply-To: <p@example.org>\nReferences: <p@example.org>\n",
		"\n\nHi\n>From here on\n>>From there\n\nFrom bot@example.org ",
		"\n\nno newline\n\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("mbox lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\r") {
		t.Error("CR in mbox")
	}
	if n := strings.Count(out, "\nFrom bot@") + 1; n != 2 {
		t.Errorf("%d messages", n)
	}
}
