package daemon

import (
	"strings"
	"testing"
)

// TestRestrictRecipients: To and Cc keep only the allowed addresses
// (folded headers, encoded names, CRLF); the rest of the message is kept
// byte for byte.
func TestRestrictRecipients(t *testing.T) {
	allowed := map[string]bool{"a@x.org": true, "list@vger.kernel.org": true}
	tests := []struct {
		name    string
		raw     string
		want    string
		dropped int
	}{
		{"folded Cc", "From: bot@b\nTo: A <a@x.org>\nCc: v1@evil.com,\n v2@evil.com, list@vger.kernel.org\nSubject: Re: x\n\nbody\nCc: v3@evil.com\n",
			"From: bot@b\nTo: \"A\" <a@x.org>\nCc: <list@vger.kernel.org>\nSubject: Re: x\n\nbody\nCc: v3@evil.com\n", 2},
		// The To is emptied: the first Cc kept becomes the To.
		{"To emptied", "To: v@evil.com\nCc: a@x.org, list@vger.kernel.org\n\nb\n", "To: <a@x.org>\nCc: <list@vger.kernel.org>\n\nb\n", 1},
		{"To emptied, one Cc", "To: v@evil.com\nCc: a@x.org\n\nb\n", "To: <a@x.org>\n\nb\n", 1},
		{"CRLF and encoded name", "To: =?UTF-8?q?J=C3=B6rg?= <a@x.org>\r\nCC: v@evil.com\r\n\r\nb\r\n", "To: =?utf-8?q?J=C3=B6rg?= <a@x.org>\r\n\r\nb\r\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, dropped, err := restrictRecipients([]byte(tt.raw), allowed)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want || len(dropped) != tt.dropped {
				t.Fatalf("got %q dropped %v\nwant %q", got, dropped, tt.want)
			}
			if strings.Contains(strings.SplitN(string(got), "\n\n", 2)[0], "evil") {
				t.Fatal("headers still name a dropped address")
			}
		})
	}
	if _, _, err := restrictRecipients([]byte("To: a@x.org"), allowed); err == nil {
		t.Error("a message without a body separator was accepted")
	}
}
