package lore

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/lore/loretest"
)

const seed000 = "../testdata/seeds/000-pipe-exclusive-autosel.mbox"

// TestThreadPublicInbox fetches a seed thread from a real public-inbox-httpd
// on loopback, by either of its messages.
func TestThreadPublicInbox(t *testing.T) {
	in := loretest.Start(t)
	if n := in.DeliverMbox(t, seed000); n != 2 {
		t.Fatalf("delivered %d messages, want 2", n)
	}
	c := &Client{BaseURL: in.URL}
	for _, id := range []string{
		"20200214154854.6746-542-sashal@kernel.org",
		"CANaxB-zjYecWpjMoX6dXY3B5HtVu8+G9npRnaX2FnTvp9XucTw@mail.gmail.com",
	} {
		data, err := c.Thread(context.Background(), Ref{MessageID: id})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if n := len(loretest.SplitMbox(data)); n != 2 {
			t.Errorf("%s: thread has %d messages, want 2", id, n)
		}
		if !bytes.Contains(data, []byte("if (!pipe->writers || wake_next_reader)")) {
			t.Errorf("%s: Andrei's fix missing from the thread", id)
		}
	}
	_, err := c.Thread(context.Background(), Ref{MessageID: "missing@example.org"})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("missing thread: err %v, want ErrNotFound", err)
	}
}

// TestThreadHTTP covers what a server may answer: gzip or plain bodies,
// errors and oversized threads.
func TestThreadHTTP(t *testing.T) {
	mbox := "From x@y Thu Jan  1 00:00:00 1970\nFrom: a@b\nSubject: x\n\nbody\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(mbox))
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/gz/"):
			w.Write(gz.Bytes())
		case strings.HasPrefix(r.URL.Path, "/plain/"):
			w.Write([]byte(mbox))
		case strings.HasPrefix(r.URL.Path, "/empty/"):
		case strings.HasPrefix(r.URL.Path, "/boom/"):
			http.Error(w, "boom", http.StatusInternalServerError)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	tests := []struct {
		inbox string
		max   int64
		want  string
		err   string
	}{
		{"gz", 0, mbox, ""},
		{"plain", 0, mbox, ""},
		{"gz", 10, "", "over 10 bytes"},
		{"empty", 0, "", "thread not found"},
		{"boom", 0, "", "HTTP 500"},
		{"nope", 0, "", "thread not found"},
	}
	for _, tc := range tests {
		c := &Client{BaseURL: srv.URL + "/" + tc.inbox + "/", MaxBytes: tc.max}
		data, err := c.Thread(context.Background(), Ref{MessageID: "x@y"})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.inbox, err, tc.err)
			}
			continue
		}
		if err != nil || string(data) != tc.want {
			t.Errorf("%s: %q, %v", tc.inbox, data, err)
		}
	}
}
