package lava

import (
	"bufio"
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestZMTPFrames(t *testing.T) {
	long := strings.Repeat("x", 300)
	var b bytes.Buffer
	b.Write(zmtpFrame(zmtpMore, []byte("org.lavasoftware.testjob")))
	b.Write(zmtpFrame(0, []byte(long)))
	b.Write(zmtpFrame(zmtpCommand, zmtpCommandBody("READY", zmtpReady("PUB"))))
	r := bufio.NewReader(&b)
	for _, want := range []struct {
		flags byte
		body  string
	}{
		{zmtpMore, "org.lavasoftware.testjob"},
		{zmtpLong, long},
		{zmtpCommand, "\x05READY\x0bSocket-Type\x00\x00\x00\x03PUB"},
	} {
		flags, body, err := readFrame(r)
		if err != nil {
			t.Fatal(err)
		}
		if flags != want.flags || string(body) != want.body {
			t.Errorf("frame %#x %q, want %#x %q", flags, body, want.flags, want.body)
		}
	}
	if g := zmtpGreeting(); len(g) != 64 || g[0] != 0xff || g[9] != 0x7f || g[10] != 3 || string(g[12:16]) != "NULL" {
		t.Errorf("greeting % x", g)
	}
}

func TestEventsWake(t *testing.T) {
	e, err := newEvents("tcp://127.0.0.1:5500", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newEvents("http://x/", nil); err == nil {
		t.Error("http URL accepted")
	}
	w7, stop7 := e.watch(7)
	defer stop7()
	w8, stop8 := e.watch(8)
	defer stop8()
	msg := func(topic, data string) [][]byte {
		return [][]byte{[]byte(topic), []byte("uuid"), []byte("2026-12-01T00:00:00"), []byte("lava"), []byte(data)}
	}
	got := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		case <-time.After(10 * time.Millisecond):
			return false
		}
	}
	e.handle(msg("org.lavasoftware.testjob", `{"job": 7, "state": "Finished", "health": "Complete"}`))
	if !got(w7) || got(w8) {
		t.Error("job 7's event did not wake only job 7")
	}
	e.handle(msg("org.lavasoftware.worker", `{"hostname": "vm", "state": "Offline"}`))
	if !got(w7) || !got(w8) {
		t.Error("a worker event did not wake every job")
	}
	e.handle([][]byte{[]byte("short")})
	if e.received.Load() != 2 {
		t.Errorf("received %d, want 2", e.received.Load())
	}
}
