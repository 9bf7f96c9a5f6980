package lore

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestThreadRedirects (issue 37, Low): a thread download follows
// redirects within the host asked only, and an error never quotes what
// the server sent.
func TestThreadRedirects(t *testing.T) {
	var otherHits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		w.Write([]byte("From x\nSECRET-INTERNAL\n"))
	}))
	defer other.Close()
	const mbox = "From x@y Mon Jan  1 00:00:00 2024\nMessage-ID: <a@b>\n\nbody\n"
	lore := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.Contains(r.URL.Path, "offsite"):
			http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/x", http.StatusFound)
		case strings.Contains(r.URL.Path, "moved"):
			http.Redirect(w, r, "/all/a@b/t.mbox.gz", http.StatusMovedPermanently)
		case strings.Contains(r.URL.Path, "broken"):
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("SECRET-BODY"))
		default:
			w.Write([]byte(mbox))
		}
	}))
	defer lore.Close()
	c := &Client{BaseURL: lore.URL + "/all/"}
	tests := []struct {
		name    string
		id      string
		wantErr error
	}{
		{"same host", "moved@x", nil},
		{"other host", "offsite@x", errRedirect},
		{"server error", "broken@x", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := c.Thread(context.Background(), Ref{MessageID: tt.id})
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			case tt.name == "server error":
				if err == nil || strings.Contains(err.Error(), "SECRET") {
					t.Fatalf("err = %v", err)
				}
			case err != nil || string(data) != mbox:
				t.Fatalf("data %q, err %v", data, err)
			}
		})
	}
	if otherHits.Load() != 0 {
		t.Errorf("the other host was asked %d times", otherHits.Load())
	}
}
