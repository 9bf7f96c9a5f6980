package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/config"
	"github.com/autosel-bot/autosel-bot/internal/ghfake"
)

const ghPatch = `From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
From: Dev <dev@example.org>
Date: Fri, 11 Aug 2023 09:03:08 +0800
Subject: [PATCH] docs: fix a typo

Signed-off-by: Dev <dev@example.org>
---
diff --git a/Documentation/filesystems/pipe.rst b/Documentation/filesystems/pipe.rst
index 1111111..2222222 100644
--- a/Documentation/filesystems/pipe.rst
+++ b/Documentation/filesystems/pipe.rst
@@ -1,3 +1,3 @@
 Pipes
 =====
-A pipe is a unidirectinal channel.
+A pipe is a unidirectional channel.
-- 
2.40.0
`

// TestWatchGitHubOnly runs `watch` with GitHub repositories and no IMAP
// server against the fake GitHub: the open pull request gets its review
// and check run, and the command stops cleanly on cancellation.
func TestWatchGitHubOnly(t *testing.T) {
	srv := ghfake.New(t)
	srv.AddPR(&ghfake.PR{Repo: "torvalds/linux", Number: 1, Title: "docs: fix a typo", Author: "dev",
		HeadSHA: strings.Repeat("c", 40), BaseSHA: strings.Repeat("b", 40),
		Commits: []ghfake.Commit{{SHA: strings.Repeat("1", 40), Patch: ghPatch}},
		Files:   map[string]string{"Documentation/filesystems/pipe.rst": "@@ -1,3 +1,3 @@\n Pipes\n =====\n-A pipe is a unidirectinal channel.\n+A pipe is a unidirectional channel."}})
	dir := t.TempDir()
	t.Setenv("AUTOSEL_TEST_GITHUB_TOKEN", "s3cr3t-token")
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`watch:
  store: %s/state.db
  outbox: %s/outbox
github:
  repos: [torvalds/linux]
  token_env: AUTOSEL_TEST_GITHUB_TOKEN
  api_url: %s
  upload_url: %s
  poll_interval: 50ms
`, dir, dir, srv.APIURL(), srv.UploadURL())), 0o644)
	v, err := config.New()
	if err != nil {
		t.Fatal(err)
	}
	root := newRoot(&app{v: v})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	metrics := ln.Addr().String()
	ln.Close()
	root.SetArgs([]string{"watch", "--config", cfg, "--metrics", metrics})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if cr := srv.CheckRuns(); len(cr) == 1 && cr[0].Status == "completed" {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("watch ended early: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no completed check run")
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get("http://" + metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `autosel_github_pull_request_heads{state="done"} 1`) {
		t.Errorf("/metrics lacks the GitHub metrics:\n%s", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if cr := srv.CheckRuns()[0]; cr.Conclusion != "success" || len(srv.Reviews()) != 1 {
		t.Errorf("check run %+v, %d reviews", cr, len(srv.Reviews()))
	}
	for _, r := range srv.Requests() {
		if r.Header.Get("Authorization") != "Bearer s3cr3t-token" {
			t.Fatalf("%s %s without the configured token", r.Method, r.Path)
		}
	}
}
