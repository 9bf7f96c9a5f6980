// Package loretest runs a real public-inbox HTTP server (Debian's
// public-inbox: public-inbox-init, public-inbox-mda, public-inbox-httpd)
// on 127.0.0.1 for tests that fetch threads the way they are fetched from
// lore.kernel.org. It never contacts another host.
package loretest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Inbox is one public-inbox v2 inbox served on loopback: over HTTP
// (Start, as lore.kernel.org serves threads) or over IMAP (StartIMAP, as
// lore's IMAP mirror serves the list to a watcher).
type Inbox struct {
	// URL is the inbox's base URL, ending in "/"
	// ("http://127.0.0.1:PORT/test-kernel/"); Start only.
	URL string
	// IMAPAddr is the IMAP server's host:port; StartIMAP only. Its
	// mailboxes are Newsgroup.0, Newsgroup.1, ...
	IMAPAddr string
	// Name is the inbox name (the first path element of URL).
	Name string
	// Newsgroup names the inbox over IMAP (and NNTP).
	Newsgroup string

	env []string
}

// Start creates an inbox in a temporary directory and serves it with
// public-inbox-httpd on a free loopback port until the test ends. The test
// is skipped when public-inbox is not installed (outside CI).
func Start(t testing.TB) *Inbox {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	in := create(t, "public-inbox-httpd")
	in.URL = "http://" + addr + "/" + in.Name + "/"
	in.serve(t, addr, "public-inbox-httpd", "-l", "http://"+addr)
	return in
}

// StartIMAP is Start with public-inbox-imapd serving the inbox over IMAP
// (anonymous login) instead.
func StartIMAP(t testing.TB) *Inbox {
	t.Helper()
	in := create(t, "public-inbox-imapd")
	in.IMAPAddr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	in.serve(t, in.IMAPAddr, "public-inbox-imapd", "-l", "imap://"+in.IMAPAddr)
	return in
}

// create makes the inbox (skipping the test without public-inbox and
// server, the daemon that will serve it).
func create(t testing.TB, server string) *Inbox {
	t.Helper()
	for _, tool := range []string{"public-inbox-init", "public-inbox-mda", server} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s not installed (.ci/packages.txt: public-inbox)", tool)
			}
			t.Skipf("%s not installed", tool)
		}
	}
	dir := t.TempDir()
	in := &Inbox{Name: "test-kernel", Newsgroup: "org.example.test-kernel"}
	cfg := filepath.Join(dir, "pi-config")
	list := "test-kernel@example.org"
	in.env = append(os.Environ(), "PI_CONFIG="+cfg, "HOME="+dir, "ORIGINAL_RECIPIENT="+list)
	in.run(t, nil, "public-inbox-init", "-V2", "--ng", in.Newsgroup, in.Name, filepath.Join(dir, "inbox"), "http://example.org/"+in.Name, list)
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// No spam checker on the test machine.
	if _, err := f.WriteString("[publicinboxmda]\n\tspamcheck = none\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return in
}

// serve runs the server command until the test ends, once it listens on
// addr.
func (in *Inbox) serve(t testing.TB, addr, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = in.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s:\n%s", name, out.String())
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s: %v\n%s", name, addr, err, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Deliver adds one raw RFC 5322 message to the inbox (public-inbox-mda).
func (in *Inbox) Deliver(t testing.TB, raw []byte) {
	t.Helper()
	in.run(t, raw, "public-inbox-mda", "--no-precheck")
}

// DeliverMbox adds every message of an mbox file.
func (in *Inbox) DeliverMbox(t testing.TB, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	msgs := SplitMbox(data)
	for _, m := range msgs {
		in.Deliver(t, m)
	}
	return len(msgs)
}

func (in *Inbox) run(t testing.TB, stdin []byte, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = in.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

// SplitMbox splits an mboxrd file into raw messages: "From " lines are
// dropped and ">From " unescaped one level.
func SplitMbox(data []byte) [][]byte {
	var (
		out [][]byte
		cur []byte
		in  bool
	)
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("From ")) {
			if in {
				out = append(out, cur)
			}
			cur, in = nil, true
			continue
		}
		if !in {
			continue
		}
		if q := bytes.TrimLeft(l, ">"); len(q) < len(l) && bytes.HasPrefix(q, []byte("From ")) {
			l = l[1:]
		}
		cur = append(cur, l...)
	}
	if in {
		out = append(out, cur)
	}
	return out
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
