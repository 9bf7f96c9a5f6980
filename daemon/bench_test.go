package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/botcmd"
	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/reply"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/all"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// genMbox writes an mbox of n messages: patch series of 1-5 parts (with a
// cover letter above one part) whose diffs change locking and wake-ups in
// C functions, review replies, and unrelated list mail.
func genMbox(w io.Writer, n int, seed int64) {
	r := rand.New(rand.NewSource(seed))
	date := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	count := 0
	msg := func(from, subject, id, inReplyTo, body string) {
		date = date.Add(time.Duration(r.Intn(120)) * time.Second)
		fmt.Fprintf(w, "From %s %s\n", from, date.Format("Mon Jan _2 15:04:05 2006"))
		fmt.Fprintf(w, "From: Dev %s <%s>\nTo: linux-kernel@vger.kernel.org\nSubject: %s\nDate: %s\nMessage-ID: <%s>\n",
			from[:3], from, subject, date.Format(time.RFC1123Z), id)
		if inReplyTo != "" {
			fmt.Fprintf(w, "In-Reply-To: <%s>\nReferences: <%s>\n", inReplyTo, inReplyTo)
		}
		fmt.Fprintf(w, "List-Id: <linux-kernel.vger.kernel.org>\n\n%s\n", body)
		count++
	}
	calls := []string{"mutex_lock(&d->mtx);", "msleep(10);", "kmalloc(64, GFP_KERNEL);", "wake_up(&d->wq);", "wake_up_all(&d->wq);", "udelay(5);"}
	for s := 0; count < n; s++ {
		author := fmt.Sprintf("dev%d@example.org", r.Intn(300))
		parts := 1 + r.Intn(5)
		v := 1 + r.Intn(3)
		base := fmt.Sprintf("s%d.v%d@example.org", s, v)
		cover := ""
		if parts > 1 {
			cover = "0." + base
			msg(author, fmt.Sprintf("[PATCH v%d 0/%d] drivers: series %d", v, parts, s), cover, "", "This series fixes things.\n")
		}
		for p := 1; p <= parts && count < n; p++ {
			fn := fmt.Sprintf("foo_%d_%d", s, p)
			file := fmt.Sprintf("drivers/foo/foo%d.c", r.Intn(50))
			old := []string{" {", " \tspin_lock(&d->lock);", "-\td->count++;", " \tspin_unlock(&d->lock);", " \treturn 0;", " }"}
			add := "+\t" + calls[r.Intn(len(calls))]
			lines := append(append(append([]string{}, old[:3]...), add, "+\td->count++;"), old[3:]...)
			oldN, newN := 0, 0
			for _, l := range lines {
				if l[0] != '+' {
					oldN++
				}
				if l[0] != '-' {
					newN++
				}
			}
			diff := fmt.Sprintf("diff --git a/%[1]s b/%[1]s\nindex 1111111..2222222 100644\n--- a/%[1]s\n+++ b/%[1]s\n@@ -20,%d +20,%d @@ static int %s(struct foo_dev *d)\n%s\n",
				file, oldN, newN, fn, strings.Join(lines, "\n"))
			subj := fmt.Sprintf("[PATCH v%d %d/%d] foo: change %s", v, p, parts, fn)
			if parts == 1 {
				subj = fmt.Sprintf("[PATCH v%d] foo: change %s", v, fn)
			}
			body := fmt.Sprintf("Change %s.\n\nSigned-off-by: Dev <%s>\n---\n%s-- \n2.43.0\n", fn, author, diff)
			id := fmt.Sprintf("%d.%s", p, base)
			msg(author, subj, id, cover, body)
			// Reviews and noise around the patches.
			if r.Intn(3) == 0 && count < n {
				msg(fmt.Sprintf("rev%d@example.org", r.Intn(50)), "Re: "+subj, "re."+id, id, "> +\tfoo\n\nLooks wrong to me.\n")
			}
			if r.Intn(6) == 0 && count < n {
				msg(fmt.Sprintf("user%d@example.org", r.Intn(50)), fmt.Sprintf("question about build %d", s), fmt.Sprintf("q%d.%d@example.org", s, p), "", "Why does it fail?\n")
			}
		}
	}
}

// realAnalyzer is what the command wires: the analysis stage (every rule,
// patch-only) and reply.Compose with the default options.
func realAnalyzer() (Analyzer, error) { return realAnalyzerWith(reply.DefaultOptions()) }

// realAnalyzerWith is realAnalyzer composing replies with ropts.
func realAnalyzerWith(ropts reply.Options) (Analyzer, error) {
	rs, err := all.Rules(rules.Options{})
	if err != nil {
		return nil, err
	}
	an, err := pipeline.NewAnalysis(pipeline.AnalysisOptions{Rules: rs, RuleOptions: rules.Options{}}, nil)
	if err != nil {
		return nil, err
	}
	p := &pipeline.Pipeline{Stages: []pipeline.Stage{an}}
	return func(ctx context.Context, s *series.Series, h *botcmd.History) (*Result, error) {
		r, err := p.Run(ctx, s)
		if err != nil {
			return nil, err
		}
		if err := botcmd.Apply(r, h); err != nil {
			return nil, err
		}
		js, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		mails, err := reply.Compose(r, s, ropts)
		if err != nil {
			return nil, err
		}
		res := &Result{Report: js}
		for _, m := range mails {
			res.Replies = append(res.Replies, OutMail{MessageID: m.MessageID, InReplyTo: m.InReplyTo, Raw: m.Bytes()})
		}
		return res, nil
	}, nil
}

// BenchmarkReplay10k measures the whole replay path (parse, store,
// policy, series assembly, analysis with every rule in patch-only mode,
// reply composition, outbox, dry-run delivery) over a generated mbox of
// 10,000 messages, and the heap in use after it.
func BenchmarkReplay10k(b *testing.B) {
	const n = 10000
	dir := b.TempDir()
	mbox := filepath.Join(dir, "lkml.mbox")
	var buf bytes.Buffer
	genMbox(&buf, n, 1)
	if err := os.WriteFile(mbox, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	analyze, err := realAnalyzer()
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var heap, peak uint64
	var st *ReplayStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		run := filepath.Join(dir, fmt.Sprint(i))
		s, err := store.Open(context.Background(), filepath.Join(run, "state.db"))
		if err != nil {
			b.Fatal(err)
		}
		out, _ := deliver.OpenOutbox(filepath.Join(run, "outbox"))
		out.Sync = false // dry-run, as replay runs by default
		dl, _ := deliver.New(s, out, nil, nil, deliver.Options{From: "bot@x"}, log)
		d, err := New(s, dl, analyze, Options{From: "bot@x", Workers: runtime.GOMAXPROCS(0)}, log)
		if err != nil {
			b.Fatal(err)
		}
		stopPeak := make(chan struct{})
		peakDone := make(chan uint64)
		go func() {
			var max uint64
			var ms runtime.MemStats
			t := time.NewTicker(50 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stopPeak:
					peakDone <- max
					return
				case <-t.C:
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > max {
						max = ms.HeapInuse
					}
				}
			}
		}()
		b.StartTimer()
		st, err = d.Replay(context.Background(), []string{mbox})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		close(stopPeak)
		peak = <-peakDone
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = ms.HeapInuse
		s.Close()
		b.StartTimer()
	}
	b.StopTimer()
	if st.Read != n {
		b.Fatalf("read %d messages, want %d", st.Read, n)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB-after")
	b.ReportMetric(float64(peak)/(1<<20), "heap-MiB-peak")
	b.Logf("messages %v, series %v, replies %v", st.Messages, st.Series, st.Replies)
}

// genSeries writes one series of parts patches threaded as git send-email
// does (a cover letter, every part in reply to it); each part adds a
// sleeping call under a spinlock in a function of its own, so the analysis
// finds something in every patch.
func genSeries(w io.Writer, parts int) {
	date := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	msg := func(id, subject, inReplyTo, body string) {
		fmt.Fprintf(w, "From a@example.org %s\n", date.Format("Mon Jan _2 15:04:05 2006"))
		fmt.Fprintf(w, "From: Dev A <a@example.org>\nTo: linux-kernel@vger.kernel.org\nSubject: %s\nDate: %s\nMessage-ID: <%s>\n",
			subject, date.Format(time.RFC1123Z), id)
		if inReplyTo != "" {
			fmt.Fprintf(w, "In-Reply-To: <%s>\nReferences: <%s>\n", inReplyTo, inReplyTo)
		}
		fmt.Fprintf(w, "List-Id: <linux-kernel.vger.kernel.org>\n\n%s\n", body)
	}
	cover := "0.huge@example.org"
	msg(cover, fmt.Sprintf("[PATCH 0/%d] foo: a huge series", parts), "", "Many changes.\n")
	for p := 1; p <= parts; p++ {
		fn := fmt.Sprintf("foo_%d", p)
		file := fmt.Sprintf("drivers/foo/foo%d.c", p%50)
		diff := fmt.Sprintf("diff --git a/%[1]s b/%[1]s\nindex 1111111..2222222 100644\n--- a/%[1]s\n+++ b/%[1]s\n"+
			"@@ -20,6 +20,7 @@ static int %[2]s(struct foo_dev *d)\n {\n \tspin_lock(&d->lock);\n-\td->count++;\n+\tmsleep(10);\n+\td->count++;\n"+
			" \tspin_unlock(&d->lock);\n \treturn 0;\n }\n", file, fn)
		msg(fmt.Sprintf("%d.huge@example.org", p), fmt.Sprintf("[PATCH %d/%d] foo: change %s", p, parts, fn), cover,
			fmt.Sprintf("Change %s.\n\nSigned-off-by: Dev A <a@example.org>\n---\n%s-- \n2.43.0\n", fn, diff))
	}
}

// BenchmarkHugeSeries compares replay with check on one 10,000-part
// series: check's path (load the mbox, assemble, analyse with every rule
// and compose the replies, as check --format email does) against the whole
// replay path (parse, store, schedule, the same analysis and replies,
// outbox, dry-run delivery). It reports both times per run and replay's
// ratio to check (goal: <= 3), with the default reply cap (a series reply
// and 10 per-patch replies) and without one (reply.max_patch_replies: 0, a
// reply to every part).
func BenchmarkHugeSeries(b *testing.B) {
	const parts = 10000
	dir := b.TempDir()
	mbox := filepath.Join(dir, "huge.mbox")
	var buf bytes.Buffer
	genSeries(&buf, parts)
	if err := os.WriteFile(mbox, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cap  int
	}{{"capped", reply.DefaultOptions().MaxPatchReplies}, {"uncapped", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			ropts := reply.DefaultOptions()
			ropts.MaxPatchReplies = tc.cap
			analyze, err := realAnalyzerWith(ropts)
			if err != nil {
				b.Fatal(err)
			}
			benchHugeSeries(b, filepath.Join(dir, tc.name), mbox, parts, analyze)
		})
	}
}

func benchHugeSeries(b *testing.B, dir, mbox string, parts int, analyze Analyzer) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var checkT, replayT time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		msgs, errs := mail.LoadWith(ctx, []string{mbox}, nil, mail.LoadOptions{Thin: true})
		if len(errs) > 0 {
			b.Fatal(errs[0])
		}
		ss := series.Assemble(msgs, series.Options{})
		if len(ss) != 1 || len(ss[0].Patches) != parts {
			b.Fatalf("check assembled %d series, want one of %d parts", len(ss), parts)
		}
		res, err := analyze(ctx, ss[0], nil)
		if err != nil {
			b.Fatal(err)
		}
		checkT += time.Since(start)

		run := filepath.Join(dir, fmt.Sprint(i))
		s, err := store.Open(ctx, filepath.Join(run, "state.db"))
		if err != nil {
			b.Fatal(err)
		}
		out, _ := deliver.OpenOutbox(filepath.Join(run, "outbox"))
		out.Sync = false
		// The rate limits of config.yaml: replies over them stay queued.
		dl, _ := deliver.New(s, out, nil, nil, deliver.Options{From: "bot@x", Policy: deliver.Policy{
			RateLimit: deliver.RateLimit{PerList: 30, PerAuthor: 5, Total: 100, Window: time.Hour}, MaxRecipients: 20}}, log)
		d, err := New(s, dl, analyze, Options{From: "bot@x", Workers: runtime.GOMAXPROCS(0)}, log)
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		st, err := d.Replay(ctx, []string{mbox})
		if err != nil {
			b.Fatal(err)
		}
		replayT += time.Since(start)
		s.Close()
		if st.Read != parts+1 || st.Series[store.SeriesDone] != 1 || sum(st.Replies) != len(res.Replies) {
			b.Fatalf("replay: read %d, series %v, replies %v; want %d read, one series done, %d replies",
				st.Read, st.Series, st.Replies, parts+1, len(res.Replies))
		}
	}
	b.ReportMetric(checkT.Seconds()/float64(b.N), "check-s/op")
	b.ReportMetric(replayT.Seconds()/float64(b.N), "replay-s/op")
	b.ReportMetric(float64(replayT)/float64(checkT), "replay/check")
}
