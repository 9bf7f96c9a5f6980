package lava

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestFileServer(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "bzImage")
	os.WriteFile(f, []byte("kernel bytes"), 0o644)
	s, err := StartFileServer("127.0.0.1:0", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	urls, withdraw, err := s.Publish(context.Background(), map[string]string{"bzImage": f})
	if err != nil {
		t.Fatal(err)
	}
	u := urls["bzImage"]
	if !strings.HasPrefix(u, "http://"+s.Addr()+"/") || !strings.HasSuffix(u, "/bzImage") || len(u) < len("http://"+s.Addr()+"/")+32 {
		t.Fatalf("url %q: want a random per-job path", u)
	}
	if code, body := get(t, u); code != 200 || body != "kernel bytes" {
		t.Fatalf("GET: %d %q", code, body)
	}
	if code, _ := get(t, "http://"+s.Addr()+"/bzImage"); code != 404 {
		t.Errorf("unpublished path: %d", code)
	}
	urls2, withdraw2, _ := s.Publish(context.Background(), map[string]string{"bzImage": f})
	defer withdraw2()
	if urls2["bzImage"] == u {
		t.Error("two jobs got the same path")
	}
	withdraw()
	if code, _ := get(t, u); code != 404 {
		t.Errorf("withdrawn path: %d", code)
	}
}

func TestSharedDir(t *testing.T) {
	src := filepath.Join(t.TempDir(), "initramfs.cpio")
	os.WriteFile(src, []byte("cpio"), 0o644)
	share := t.TempDir()
	d := &sharedDir{dir: share, prefix: "https://files.example.org/lava/"}
	urls, withdraw, err := d.Publish(context.Background(), map[string]string{"initramfs.cpio": src})
	if err != nil {
		t.Fatal(err)
	}
	rel := strings.TrimPrefix(urls["initramfs.cpio"], "https://files.example.org/lava/")
	if rel == urls["initramfs.cpio"] || !strings.HasSuffix(rel, "/initramfs.cpio") {
		t.Fatalf("url %q", urls["initramfs.cpio"])
	}
	if b, err := os.ReadFile(filepath.Join(share, rel)); err != nil || string(b) != "cpio" {
		t.Fatalf("copy: %v %q", err, b)
	}
	withdraw()
	if ents, _ := os.ReadDir(share); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}
