package lavalab

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/flock"
)

// TestClaim: who starts the lab. With its lock held elsewhere and no API
// answering, a process waits and starts nothing; with the lock free it
// takes it; with an API answering it uses that lab and takes no lock.
func TestClaim(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "lab.lock")
	dead := "http://127.0.0.1:9/" // the discard port: nothing answers
	held, err := flock.Lock(context.Background(), lock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	unlock, err := claim(ctx, dead, lock)
	cancel()
	if unlock != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock held elsewhere: unlock %v, err %v; want to wait and give up", unlock != nil, err)
	}

	held()
	unlock, err = claim(context.Background(), dead, lock)
	if err != nil || unlock == nil {
		t.Fatalf("free lock: unlock %v, err %v; want it taken", unlock != nil, err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 500*time.Millisecond)
	if _, err := flock.Lock(ctx, lock); err == nil {
		t.Error("the claimed lock could be taken again")
	}
	cancel()
	unlock()

	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer api.Close()
	unlock, err = claim(context.Background(), api.URL+"/", lock)
	if err != nil || unlock != nil {
		t.Fatalf("a lab answering: unlock %v, err %v; want it used without the lock", unlock != nil, err)
	}
}
