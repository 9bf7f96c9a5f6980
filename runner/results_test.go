package runner

import (
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
)

// mkFrame renders a frame the way guest/init.c does.
func mkFrame(name string, run int, body string, status string) string {
	return fmt.Sprintf("@@AUTOSEL-BEGIN %s %d\n%s@@AUTOSEL-END %s %d %s len=%d crc=%08x\n",
		name, run, body, name, run, status, len(body), crc32.ChecksumIEEE([]byte(body)))
}

func TestParseChannel(t *testing.T) {
	body := "o {\"result\":\"pass\"}\nk 123 autosel: begin t 0\nk 456 hello kernel\n"
	good := mkFrame("t", 0, body, "exit=0 sig=0 timeout=0 unreaped=0 ms=42")
	damaged := strings.Replace(mkFrame("u", 0, "o {\"result\":\"pass\"}\n", "exit=0 sig=0 timeout=0 unreaped=0 ms=1"), "pass", "fail", 1)
	input := "boot noise\n@@AUTOSEL-HELLO 1\n" + mkFrame("boot", 0, "k 1 Linux version\n", "exit=0 sig=0 timeout=0 unreaped=0 ms=0") +
		good + damaged + "@@AUTOSEL-BEGIN v 2\no {\"log\":\"x\"}\n"
	c := parseChannel([]byte(input))
	if !c.Hello || c.Done {
		t.Fatalf("hello=%v done=%v", c.Hello, c.Done)
	}
	if len(c.Frames) != 2 {
		t.Fatalf("frames = %d, want 2 (boot, t): %+v", len(c.Frames), c.Frames)
	}
	f := c.Frame("t", 0)
	if f == nil || len(f.Out) != 1 || len(f.Kmsg) != 2 || f.Kmsg[1].Micros != 456 || f.Kmsg[1].Text != "hello kernel" {
		t.Fatalf("frame t: %+v", f)
	}
	if f.Elapsed.Milliseconds() != 42 {
		t.Errorf("elapsed %v", f.Elapsed)
	}
	if c.Frame("u", 0) != nil {
		t.Errorf("damaged frame accepted")
	}
	if len(c.Problems) != 1 || !strings.Contains(c.Problems[0], "checksum") {
		t.Errorf("problems = %q", c.Problems)
	}
	if c.Running != "v" || c.RunningRun != 2 {
		t.Errorf("running = %s/%d, want v/2", c.Running, c.RunningRun)
	}
}

func TestParseChannelStatus(t *testing.T) {
	in := "@@AUTOSEL-HELLO 1\n" + mkFrame("t", 1, "", "exit=-1 sig=9 timeout=1 unreaped=1 ms=9000") + "@@AUTOSEL-DONE\n"
	c := parseChannel([]byte(in))
	f := c.Frame("t", 1)
	if f == nil || !f.Timeout || !f.Unreaped || f.Signal != 9 || f.Exit != -1 || !c.Done {
		t.Fatalf("frame %+v done=%v", f, c.Done)
	}
}

// FuzzParseChannel: any bytes parse without panicking, and only frames
// whose checksum matches are accepted.
func FuzzParseChannel(f *testing.F) {
	f.Add([]byte("@@AUTOSEL-HELLO 1\n" + mkFrame("t", 0, "o x\n", "exit=0 ms=1") + "@@AUTOSEL-DONE\n"))
	f.Add([]byte("@@AUTOSEL-BEGIN a\n@@AUTOSEL-END a 0 len=x crc=zz\n"))
	f.Add([]byte("@@AUTOSEL-END t 0 len=0 crc=00000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := parseChannel(data)
		for _, fr := range c.Frames {
			if fr.Name == "" {
				t.Fatalf("frame without a name")
			}
		}
	})
}
