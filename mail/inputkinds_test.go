package mail

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadInputKinds: what b4, lore and git write is read (a .mbox.gz, a
// Maildir of git mailsplit -o with "From " lines, a git format-patch -o
// directory), and a file that is no patch says so by name.
func TestLoadInputKinds(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const sep = "From 0ddad21d3e99c743a3aa473121dc5561679e26bb Mon Sep 17 00:00:00 2001\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("From a@b Fri Feb 14 08:03:00 2020\n" + msgText("gz1@x", "[PATCH 1/2] a", patchBody) + "\n" +
		"From a@b Fri Feb 14 08:03:00 2020\n" + msgText("gz2@x", "[PATCH 2/2] b", patchBody)))
	zw.Close()
	mboxGz := write("t.mbox.gz", gz.Bytes())
	binary := write("ls.bin", []byte("\x7fELF\x02\x01\x01\x00\x00\x00garbage\x00\x01"))
	text := write("notes.txt", []byte("hello world\nthis is no patch\n"))
	write("split/cur/0001", []byte(sep+msgText("ms1@x", "[PATCH 1/2] a", patchBody)))
	write("split/new/0002", []byte(sep+msgText("ms2@x", "[PATCH 2/2] b", patchBody)))
	write("fp/0000-cover-letter.patch", []byte(sep+msgText("fp0@x", "[PATCH 0/2] cover", "cover\n")))
	write("fp/0001-a.patch", []byte(sep+msgText("fp1@x", "[PATCH 1/2] a", patchBody)))
	write("fp/0002-b.patch", []byte(sep+msgText("fp2@x", "[PATCH 2/2] b", patchBody)))
	write("fp/notes.txt", []byte("not read\n"))
	write("other/readme", []byte("x\n"))

	tests := []struct {
		name  string
		path  string
		ids   []string
		files []string // Message.File per message
		err   string   // the one InputError, "" for none
	}{
		{"mbox.gz", mboxGz, []string{"gz1@x", "gz2@x"}, []string{"", ""}, ""},
		{"binary", binary, nil, nil, "no patch found in " + binary + " (binary data)"},
		{"text", text, nil, nil, "no patch found in " + text + " (text that is neither mail, an mbox nor a diff)"},
		{"mailsplit Maildir", filepath.Join(dir, "split"), []string{"ms1@x", "ms2@x"},
			[]string{filepath.Join(dir, "split/cur/0001"), filepath.Join(dir, "split/new/0002")}, ""},
		{"format-patch -o", filepath.Join(dir, "fp"), []string{"fp0@x", "fp1@x", "fp2@x"},
			[]string{filepath.Join(dir, "fp/0000-cover-letter.patch"), filepath.Join(dir, "fp/0001-a.patch"), filepath.Join(dir, "fp/0002-b.patch")}, ""},
		{"other directory", filepath.Join(dir, "other"), nil, nil, "neither a Maildir (no cur/ or new/) nor a git format-patch -o directory (no *.patch files)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs, errs := Load(context.Background(), []string{tc.path}, nil)
			var ids, files []string
			for _, m := range msgs {
				ids = append(ids, m.MessageID)
				files = append(files, m.File)
				if m.Subject.Number > 0 && m.Diff == "" {
					t.Errorf("<%s>: no diff", m.MessageID)
				}
			}
			if strings.Join(ids, " ") != strings.Join(tc.ids, " ") || strings.Join(files, " ") != strings.Join(tc.files, " ") {
				t.Errorf("messages %q files %q, want %q %q", ids, files, tc.ids, tc.files)
			}
			switch {
			case tc.err == "" && len(errs) > 0:
				t.Errorf("errors: %v", errs)
			case tc.err != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.err)):
				t.Errorf("errors %v, want one with %q", errs, tc.err)
			}
		})
	}
}
