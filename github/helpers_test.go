package github

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/autosel-bot/autosel-bot/internal/ghfake"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/store"
)

// seedCommits turns the patches of an mbox into GitHub commit patch texts
// ("From <sha> ...", From/Date/Subject headers, "[PATCH] title"), oldest
// first. edit may rewrite a patch's diff (to make a fix).
func seedCommits(t *testing.T, mbox string, edit func(n int, body string) string) []ghfake.Commit {
	t.Helper()
	f, err := os.Open(mbox)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []ghfake.Commit
	err = mail.ReadMbox(f, func(raw []byte, line int) error {
		m, err := mail.Parse(bytes.NewReader(raw))
		if err != nil || m.Subject.Reply || m.Diff == "" {
			return nil
		}
		_, body, _ := strings.Cut(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n\n")
		if edit != nil {
			body = edit(len(out)+1, body)
		}
		head := fmt.Sprintf("From: %s <%s>\nDate: %s\nSubject: [PATCH] %s\n", m.From.Name, m.From.Addr,
			m.Date.Format(time.RFC1123Z), m.Subject.Title)
		sum := sha1.Sum([]byte(head + body))
		sha := hex.EncodeToString(sum[:])
		out = append(out, ghfake.Commit{SHA: sha, Patch: "From " + sha + " Mon Sep 17 00:00:00 2001\n" + head + "\n" + body})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// prRepo builds a git repository in which the commits apply exactly at
// the line numbers of their hunks (the upstream base of seed patches is
// not the 6.1 tree): each touched file's base is synthesised from the
// hunks' pre-image lines (later commits' lines mapped back through the
// earlier ones), other lines are placeholders. It returns GitHub's
// per-file patches of the PR (git diff base..head) and the head files.
func prRepo(t *testing.T, commits []ghfake.Commit) (files map[string]string, head func(path string) []string) {
	t.Helper()
	type fileHunksOf = map[string][]hunk
	var per []fileHunksOf
	for _, c := range commits {
		m := mustParse(t, patchMail(c.Patch, "x@y", "c@y", 1, 1))
		per = append(per, fileHunks(m.Diff, ""))
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		return testtree.Git(t, dir, args...)
	}
	git("init", "-q", ".")
	paths := map[string]bool{}
	for _, fh := range per {
		for p := range fh {
			paths[p] = true
		}
	}
	for p := range paths {
		base := map[int]string{}
		for k, fh := range per {
			for _, h := range fh[p] {
				o := h.oldStart
				for _, l := range h.lines {
					if l != "" && (l[0] == '+' || l[0] == '\\') {
						continue
					}
					if line, ok := backToBase(per[:k], p, o); ok {
						if _, set := base[line]; !set {
							base[line] = strings.TrimPrefix(strings.TrimPrefix(l, " "), "-")
						}
					}
					o++
				}
			}
		}
		if len(base) == 0 {
			continue // a new file
		}
		n := 0
		for l := range base {
			n = max(n, l)
		}
		var b strings.Builder
		for i := 1; i <= n+5; i++ {
			if s, ok := base[i]; ok {
				b.WriteString(s + "\n")
			} else {
				fmt.Fprintf(&b, "/* %s line %d */\n", p, i)
			}
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "-A")
	git("commit", "-qm", "base")
	for i, c := range commits {
		pf := filepath.Join(t.TempDir(), fmt.Sprintf("%d.patch", i))
		os.WriteFile(pf, []byte(c.Patch), 0o644)
		git("apply", "--index", pf)
		git("commit", "-qm", c.SHA)
	}
	files = map[string]string{}
	for p := range paths {
		d := git("diff", "-U3", "HEAD~"+fmt.Sprint(len(commits)), "HEAD", "--", p)
		if i := strings.Index(d, "\n@@ "); i >= 0 {
			files[p] = strings.TrimSuffix(d[i+1:], "\n")
		}
	}
	return files, func(path string) []string {
		b, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(string(b), "\n")
	}
}

// backToBase maps a line of the file after the commits of earlier back to
// the base; false when an earlier commit wrote that line.
func backToBase(earlier []map[string][]hunk, path string, line int) (int, bool) {
	for k := len(earlier) - 1; k >= 0; k-- {
		shift := 0
		for _, h := range earlier[k][path] {
			switch {
			case line >= h.newStart+h.newLen:
				shift += h.newLen - h.oldLen
			case line >= h.newStart:
				return 0, false
			}
		}
		line -= shift
	}
	return line, true
}

// newTestWatcher wires a client on the fake and a store at dbPath.
func newTestWatcher(t *testing.T, srv *ghfake.Server, dbPath string, analyze AnalyzeFunc) (*Watcher, *store.Store, *Client) {
	t.Helper()
	c, err := NewClient(ClientOptions{Token: "t0ken-secret", BaseURL: srv.APIURL(), UploadURL: srv.UploadURL(),
		Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, WriteGap: -1, MaxRateWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w, err := NewWatcher(c, st, analyze, Options{Repos: []string{"torvalds/linux"}, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return w, st, c
}

func mustParse(t *testing.T, raw []byte) *mail.Message {
	t.Helper()
	m, err := mail.Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func checkOpts() gh.CreateCheckRunOptions {
	return gh.CreateCheckRunOptions{Name: "x", HeadSHA: strings.Repeat("a", 40)}
}
