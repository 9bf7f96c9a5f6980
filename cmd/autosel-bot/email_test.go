package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	gomail "github.com/emersion/go-message/mail"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// TestCheckEmailMbox: --format email is an mbox of complete replies, one
// message per reply, that git mailsplit splits and go-message parses, each
// threaded to the message it answers.
func TestCheckEmailMbox(t *testing.T) {
	seed004 := "../../testdata/seeds/004-epoll-autoremove.mbox"
	_, out, stderr := runCLI(t, "", "check", "--format", "email", seed000, seed002, seed004)
	if !strings.HasPrefix(out, "From ") {
		t.Fatalf("not an mbox:\n%s\n%s", out, stderr)
	}
	nFrom := strings.Count(out, "\nFrom autosel-bot@localhost ") + 1
	if nFrom < 3 {
		t.Fatalf("%d replies, want one per series with findings at least", nFrom)
	}
	inputIDs := map[string]bool{}
	for _, f := range []string{seed000, seed002, seed004} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if len(l) > 11 && strings.EqualFold(l[:11], "Message-ID:") {
				inputIDs[strings.Trim(strings.TrimSpace(l[11:]), "<>")] = true
			}
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	mbox := filepath.Join(dir, "replies.mbox")
	if err := os.WriteFile(mbox, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	split := filepath.Join(dir, "split")
	os.Mkdir(split, 0o755)
	got := testtree.Git(t, dir, "mailsplit", "-o"+split, mbox)
	if n := strings.TrimSpace(got); n != itoaT(nFrom) {
		t.Errorf("git mailsplit found %s messages, want %d", n, nFrom)
	}
	files, _ := filepath.Glob(filepath.Join(split, "*"))
	sort.Strings(files)
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// git mailsplit keeps the mbox "From " line; mail readers skip it.
		if bytes.HasPrefix(data, []byte("From ")) {
			data = data[bytes.IndexByte(data, '\n')+1:]
		}
		mr, err := gomail.CreateReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		h := mr.Header
		from, err := h.AddressList("From")
		if err != nil || len(from) != 1 {
			t.Errorf("%s: From %v %v", f, from, err)
		}
		to, err := h.AddressList("To")
		if err != nil || len(to) == 0 {
			t.Errorf("%s: To %v %v", f, to, err)
		}
		id, err := h.MessageID()
		if err != nil || id == "" || seen[id] {
			t.Errorf("%s: Message-ID %q %v (duplicate %v)", f, id, err, seen[id])
		}
		seen[id] = true
		irt, err := h.MsgIDList("In-Reply-To")
		if err != nil || len(irt) != 1 || !inputIDs[irt[0]] {
			t.Errorf("%s: In-Reply-To %v does not name an input message", f, irt)
		}
		refs, err := h.MsgIDList("References")
		if err != nil || len(refs) == 0 || refs[len(refs)-1] != irt[0] {
			t.Errorf("%s: References %v", f, refs)
		}
		subj, _ := h.Subject()
		if !strings.HasPrefix(subj, "Re: ") {
			t.Errorf("%s: Subject %q", f, subj)
		}
		if d, err := h.Date(); err != nil || d.IsZero() {
			t.Errorf("%s: Date %v %v", f, d, err)
		}
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("%s: body: %v", f, err)
		}
		var body bytes.Buffer
		body.ReadFrom(p.Body)
		if !strings.Contains(body.String(), "[This is an automated email]") {
			t.Errorf("%s: body %q", f, body.String())
		}
	}
}

func itoaT(n int) string { return strconv.Itoa(n) }
