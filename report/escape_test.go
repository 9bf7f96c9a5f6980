package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteTextEscapesControls checks that terminal control sequences in
// text from mail (subject, title, author, file names, errors) are printed
// escaped, never raw.
func TestWriteTextEscapesControls(t *testing.T) {
	hostile := []struct {
		name, in, want string
	}{
		{"ESC clear screen", "\x1b[2J\x1b[Hfake prompt", `\x1b[2J\x1b[Hfake prompt`},
		{"OSC set title", "\x1b]0;owned\x07", `\x1b]0;owned\x07`},
		{"carriage return overwrite", "ok\rrisk", `ok\x0drisk`},
		{"backspace", "risk\b\b\b\bnote", `risk\x08\x08\x08\x08note`},
		{"C1 CSI", "a\u009b31mb", `a\u009b31mb`},
		{"DEL", "a\x7fb", `a\x7fb`},
		{"invalid UTF-8", "a\xffb", `a\xffb`},
		{"tab and plain text kept", "fs/pipe.c\tpipe_write", "fs/pipe.c\tpipe_write"},
	}
	for _, tt := range hostile {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{
				SeriesID: "x@y",
				Title:    tt.in,
				Author:   "A " + tt.in + " <a@example.com>",
				Patches: []PatchReport{{
					Number: 1, Subject: "[PATCH] " + tt.in, Files: []string{"fs/" + tt.in + ".c"},
					Error: "diff: " + tt.in,
				}},
				Errors: []InputError{{Source: tt.in, Err: tt.in}},
			}
			var b bytes.Buffer
			if err := WriteText(&b, []*Report{r}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for i := 0; i < len(out); i++ {
				if c := out[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c == 0xff {
					t.Fatalf("raw control byte %#x in output:\n%q", c, out)
				}
			}
			if strings.Contains(out, "\u009b") {
				t.Fatalf("raw C1 control in output:\n%q", out)
			}
			if n := strings.Count(out, tt.want); n < 3 {
				t.Errorf("%q appears %d times in output, want it escaped in title, subject and file name:\n%s", tt.want, n, out)
			}
		})
	}
}
