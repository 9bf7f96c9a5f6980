package runner

import (
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
)

// frameText renders a frame as guest/init.c writes it.
func frameText(name string, run int, body string) string {
	return fmt.Sprintf("%s%s %d\n%s%s%s %d exit=0 sig=0 timeout=0 unreaped=0 ms=5 len=%d crc=%08x\n",
		markBegin, name, run, body, markEnd, name, run, len(body), crc32.ChecksumIEEE([]byte(body)))
}

func TestSplitConsole(t *testing.T) {
	body := "o {\"result\":\"pass\"}\nk 123 autosel: end t 0\n"
	tests := []struct {
		name        string
		in          string
		wantFrames  int
		wantConsole []string
		wantHello   bool
		wantDone    bool
	}{
		{
			name: "frames between console lines",
			in: "[    0.1] Linux version 6.1\r\n" + markHello + " 1\r\n" +
				strings.ReplaceAll(frameText("boot", 0, "k 0 Linux version 6.1\n"), "\n", "\r\n") +
				"autosel: begin t 0\n" + frameText("t", 0, body) + markDone + "\n",
			wantFrames: 2, wantHello: true, wantDone: true,
			wantConsole: []string{"Linux version 6.1", "autosel: begin t 0"},
		},
		{
			name:       "kernel line between frames is console",
			in:         markHello + " 1\n" + frameText("t", 0, body) + "o not in a frame\n",
			wantFrames: 1, wantHello: true,
			wantConsole: []string{"o not in a frame"},
		},
		{
			name:       "kernel line inside a frame damages it",
			in:         markHello + " 1\n" + strings.Replace(frameText("t", 0, body), "k 123", "k 123 extra", 1),
			wantFrames: 0, wantHello: true,
			wantConsole: nil,
		},
		{
			name: "console lines cutting a frame line in two are taken out",
			in: markHello + " 1\n" + strings.Replace(frameText("t", 0, body), "k 123 autosel",
				"k 12[    2.555595] input: mouse\r\n[    2.578591] input: keyboard\r\n3 autosel", 1),
			wantFrames: 1, wantHello: true,
			wantConsole: []string{"input: mouse", "input: keyboard"},
		},
		{
			name: "a cut frame line that does not join back stays damaged",
			in: markHello + " 1\n" + strings.Replace(frameText("t", 0, body), "k 123 autosel",
				"k 12[    2.555595] input: mouse\n4 autosel", 1),
			wantFrames: 0, wantHello: true,
			wantConsole: []string{"input: mouse"},
		},
		{
			name:        "no results at all",
			in:          "[    0.5] Kernel panic - not syncing: VFS\n",
			wantConsole: []string{"Kernel panic - not syncing: VFS"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			con, res := SplitConsole([]byte(tt.in))
			ch := parseChannel(res)
			if len(ch.Frames) != tt.wantFrames || ch.Hello != tt.wantHello || ch.Done != tt.wantDone {
				t.Errorf("frames %d hello %v done %v, want %d %v %v (problems %v)", len(ch.Frames), ch.Hello, ch.Done,
					tt.wantFrames, tt.wantHello, tt.wantDone, ch.Problems)
			}
			got := consoleLines(con)
			if strings.Join(got, "|") != strings.Join(tt.wantConsole, "|") {
				t.Errorf("console %q, want %q", got, tt.wantConsole)
			}
			if strings.Contains(string(con)+string(res), "\r") {
				t.Error("carriage return kept")
			}
		})
	}
}
