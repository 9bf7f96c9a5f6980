package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/config"
)

// TestServeSeed002: replay writes seed 002 into a state database and its
// replies link each finding to <web.base_url>finding/<id>; serve then
// answers that path over the database with the finding's page, and
// stops when its context ends. Without a database serve exits 2.
func TestServeSeed002(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "state.db")
	t.Setenv("AUTOSEL_BOT_WATCH_STORE", db)
	t.Setenv("AUTOSEL_BOT_WATCH_OUTBOX", filepath.Join(dir, "outbox"))
	t.Setenv("AUTOSEL_BOT_WEB_BASE_URL", "https://autosel.example.org/bot/")
	if code, _, stderr := runCLI(t, "", "replay", seed002); code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, stderr)
	}
	var ids []string
	linkRE := regexp.MustCompile(`(?m)^    Finding id: \S+\r?\n    Web: https://autosel\.example\.org/bot/finding/([0-9a-f]{12}(?:-\d+)?)\r?$`)
	filepath.WalkDir(filepath.Join(dir, "outbox"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			for _, m := range linkRE.FindAllStringSubmatch(string(data), -1) {
				ids = append(ids, m[1])
			}
		}
		return nil
	})
	if len(ids) == 0 {
		t.Fatal("no reply links a finding page")
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- executeCtx(ctx, "serve", "--addr", addr) }()
	var body string
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/finding/" + ids[0])
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("finding page: %d\n%s", resp.StatusCode, b)
			}
			body = string(b)
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("serve does not answer: %v", err)
		}
	}
	if !strings.Contains(body, ids[0]) || !strings.Contains(body, "post_one_notification") || !strings.Contains(body, "<svg") {
		t.Errorf("finding page:\n%.2000s", body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop with its context")
	}

	t.Setenv("AUTOSEL_BOT_WATCH_STORE", filepath.Join(dir, "none.db"))
	if code, _, stderr := runCLI(t, "", "serve", "--addr", "127.0.0.1:0"); code != 2 || !strings.Contains(stderr, "no state database") {
		t.Errorf("serve without a database: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Errorf("serve created a database")
	}
}

// executeCtx runs the command line args with ctx.
func executeCtx(ctx context.Context, args ...string) error {
	v, err := config.New()
	if err != nil {
		return err
	}
	a := &app{v: v}
	root := newRoot(a)
	root.SetArgs(args)
	root.SetOut(io.Discard)
	root.SetErr(&bytes.Buffer{})
	return root.ExecuteContext(ctx)
}
