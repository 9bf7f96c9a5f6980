package mail

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadInputsHostile feeds inputs that used to hang, exhaust memory or
// abort the whole run, and checks each is skipped with an error naming it
// while the good messages around it are still read.
func TestReadInputsHostile(t *testing.T) {
	good := msgText("good@x", "[PATCH] good", patchBody)
	tests := []struct {
		name string
		// setup creates the hostile input in dir and returns the paths to read.
		setup func(t *testing.T, dir string) []string
		// wantErr are substrings of the expected input errors, in order.
		wantErr []string
		// wantMsgs is how many messages are read.
		wantMsgs int
	}{
		{"FIFO in a Maildir", func(t *testing.T, dir string) []string {
			md := maildir(t, dir, good)
			mkfifo(t, filepath.Join(md, "new", "2.fifo"))
			return []string{md}
		}, []string{"2.fifo: not a regular file; skipped (FIFO)"}, 1},
		{"FIFO given as a path", func(t *testing.T, dir string) []string {
			p := filepath.Join(dir, "fifo")
			mkfifo(t, p)
			return []string{p, writeFile(t, dir, "a.mbox", good)}
		}, []string{"fifo: not a regular file; skipped (FIFO)"}, 1},
		{"symlink to /dev/zero in a Maildir", func(t *testing.T, dir string) []string {
			md := maildir(t, dir, good)
			symlink(t, "/dev/zero", filepath.Join(md, "cur", "0.zero"))
			return []string{md}
		}, []string{"0.zero: not a regular file; skipped (symbolic link)"}, 1},
		{"symlink to /dev/zero given as a path", func(t *testing.T, dir string) []string {
			p := filepath.Join(dir, "zero.mbox")
			symlink(t, "/dev/zero", p)
			return []string{p, writeFile(t, dir, "a.mbox", good)}
		}, []string{"zero.mbox: not a regular file; skipped (character device)"}, 1},
		{"symlink to a message in a Maildir", func(t *testing.T, dir string) []string {
			md := maildir(t, dir, good)
			symlink(t, writeFile(t, dir, "outside", good), filepath.Join(md, "cur", "9.link"))
			return []string{md}
		}, []string{"9.link: not a regular file; skipped (symbolic link)"}, 1},
		{"device given as a path", func(t *testing.T, dir string) []string {
			return []string{"/dev/null", writeFile(t, dir, "a.mbox", good)}
		}, []string{"/dev/null: not a regular file; skipped (character device)"}, 1},
		{"missing path among good ones", func(t *testing.T, dir string) []string {
			return []string{writeFile(t, dir, "a.mbox", good), filepath.Join(dir, "missing.mbox"), writeFile(t, dir, "b.mbox", good)}
		}, []string{"missing.mbox: stat", "no such file"}, 2},
		{"unreadable Maildir folder among good ones", func(t *testing.T, dir string) []string {
			md := maildir(t, dir, good)
			if err := os.Remove(filepath.Join(md, "cur")); err != nil {
				t.Fatal(err)
			}
			writeFile(t, md, "cur", "not a folder")
			return []string{md}
		}, []string{"md/cur: open", "not a directory"}, 1},
		{"unreadable path among good ones", func(t *testing.T, dir string) []string {
			if os.Geteuid() == 0 {
				t.Skip("root reads every file")
			}
			p := writeFile(t, dir, "secret.mbox", good)
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
			return []string{p, writeFile(t, dir, "a.mbox", good)}
		}, []string{"secret.mbox: open", "permission denied"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paths := tt.setup(t, t.TempDir())
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			n := 0
			errs, err := ReadInputs(ctx, paths, nil, func(r *Raw) error {
				n++
				return nil
			})
			if err != nil {
				t.Fatalf("ReadInputs: %v", err)
			}
			if n != tt.wantMsgs {
				t.Errorf("%d messages read, want %d", n, tt.wantMsgs)
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			joined := strings.Join(got, "\n")
			for _, w := range tt.wantErr {
				if !strings.Contains(joined, w) {
					t.Errorf("input errors:\n%s\nwant one containing %q", joined, w)
				}
			}
			if len(errs) != 1 {
				t.Errorf("%d input errors, want 1: %s", len(errs), joined)
			}
		})
	}
}

// TestReadInputsCancel checks that a cancelled read of an endless stream
// stops (SIGTERM during replay of a pipe).
func TestReadInputsCancel(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	go func() {
		// Endless input, one message after another, never EOF.
		for {
			if _, err := w.WriteString("From a@b Fri Feb 14 08:03:00 2020\n" + msgText("x@y", "x", "y\n") + "\n"); err != nil {
				return
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	done := make(chan error, 1)
	go func() {
		_, err := ReadInputs(ctx, []string{"-"}, r, func(*Raw) error {
			if n++; n == 100 {
				cancel()
			}
			return nil
		})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadInputs did not stop when cancelled")
	}
}

// TestLoadThin checks that thin loading keeps what threading and analysis
// need and drops the rest.
func TestLoadThin(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.mbox",
		"From a@b Fri Feb 14 08:03:00 2020\n"+msgText("p@x", "[PATCH] p", patchBody)+"\n"+
			"From a@b Fri Feb 14 08:03:00 2020\n"+"In-Reply-To: <p@x>\n"+msgText("r@x", "Re: [PATCH] p", "Looks good.\n\nReviewed-by: R <r@example.com>\n"))
	msgs, errs := LoadWith(context.Background(), []string{p}, nil, LoadOptions{Thin: true})
	if len(errs) > 0 || len(msgs) != 2 {
		t.Fatalf("msgs %d errs %v", len(msgs), errs)
	}
	if msgs[0].Diff == "" || msgs[0].CommitMsg == "" || msgs[0].Body != "" {
		t.Errorf("patch: diff %d commit %d body %d bytes; want diff and commit message kept, body dropped", len(msgs[0].Diff), len(msgs[0].CommitMsg), len(msgs[0].Body))
	}
	if msgs[1].Body != "" || msgs[1].CommitMsg != "" || len(msgs[1].Trailers) != 1 || msgs[1].InReplyTo != "p@x" {
		t.Errorf("reply: %+v; want headers and trailers only", msgs[1])
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// maildir makes a Maildir holding one message in new/.
func maildir(t *testing.T, dir, msg string) string {
	t.Helper()
	md := filepath.Join(dir, "md")
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(md, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(md, "new"), "1.host", msg)
	return md
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}
