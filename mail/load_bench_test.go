package mail

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// writeLargeMbox writes an mbox of about size bytes shaped like a busy list
// archive: mostly discussion (quoted replies), every tenth message a patch
// with a diff of a few hundred lines. It returns the path.
func writeLargeMbox(tb testing.TB, dir string, size int64) string {
	tb.Helper()
	p := filepath.Join(dir, "large.mbox")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	for i := 0; n < size; i++ {
		var body string
		subject := fmt.Sprintf("Re: [PATCH] subsystem: discussion %d", i/10)
		if i%10 == 0 {
			subject = fmt.Sprintf("[PATCH] subsystem: fix %d", i/10)
			body = "A fix.\n\nSigned-off-by: A <a@example.com>\n---\n" +
				"diff --git a/fs/pipe.c b/fs/pipe.c\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1,300 +1,300 @@\n"
			for l := 0; l < 300; l++ {
				body += fmt.Sprintf(" context line %d of the pipe code, long enough to be realistic\n", l)
			}
		} else {
			for l := 0; l < 120; l++ {
				body += fmt.Sprintf("> quoted discussion line %d of message %d, as replies on lkml carry\n", l, i)
			}
		}
		irt := ""
		if i%10 != 0 {
			irt = fmt.Sprintf("In-Reply-To: <m%d@example.com>\n", i-i%10)
		}
		msg := fmt.Sprintf("From a@example.com Fri Feb 14 08:03:00 2020\nFrom: A <a@example.com>\nTo: list@example.com\n"+
			"Subject: %s\nMessage-ID: <m%d@example.com>\n%sDate: Fri, 14 Feb 2020 11:03:12 -0500\n\n%s\n", subject, i, irt, body)
		k, _ := w.WriteString(msg)
		n += int64(k)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// peakHeap samples the live heap while run runs and returns its maximum.
func peakHeap(run func()) uint64 {
	runtime.GC()
	var (
		peak uint64
		mu   sync.Mutex
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			mu.Lock()
			peak = max(peak, ms.HeapAlloc)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	run()
	close(done)
	wg.Wait()
	return peak
}

// BenchmarkLoadLargeMbox loads a generated 110 MB list archive (the size of
// the one that took 650 MB RSS in check) and reports the peak heap. Before
// streaming, Load held every raw message and every parsed one: 480 MB peak
// heap. Streamed, "full" holds the parsed messages only; "thin" (what check
// uses) also drops the text of the discussion, so memory follows the
// patches kept, not the input size.
func BenchmarkLoadLargeMbox(b *testing.B) {
	p := writeLargeMbox(b, b.TempDir(), 110<<20)
	fi, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts LoadOptions
	}{{"full", LoadOptions{}}, {"thin", LoadOptions{Thin: true}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			var peak uint64
			for i := 0; i < b.N; i++ {
				var msgs []*Message
				pk := peakHeap(func() {
					var errs []*InputError
					msgs, errs = LoadWith(context.Background(), []string{p}, nil, tc.opts)
					if len(errs) > 0 {
						b.Fatal(errs[0])
					}
				})
				if len(msgs) == 0 {
					b.Fatal("no messages")
				}
				peak = max(peak, pk)
				runtime.KeepAlive(msgs)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(fi.Size())/(1<<20), "input-MB")
		})
	}
}
