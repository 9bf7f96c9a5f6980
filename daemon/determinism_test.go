package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/store"
)

// outcome is what a run leaves behind: the store's counts and the
// outbox (file name -> reply text without its Date header).
type outcome struct {
	Messages, Series, Replies map[string]int
	Outbox                    map[string]string
}

// outcomeOf reads the outcome of a run from its store and outbox.
func outcomeOf(t testing.TB, st *store.Store, outbox string) outcome {
	t.Helper()
	ctx := context.Background()
	var o outcome
	var err error
	if o.Messages, err = st.CountMessages(ctx); err != nil {
		t.Fatal(err)
	}
	if o.Series, err = st.CountSeries(ctx); err != nil {
		t.Fatal(err)
	}
	if o.Replies, err = st.CountReplies(ctx); err != nil {
		t.Fatal(err)
	}
	o.Outbox = map[string]string{}
	for _, sub := range []string{"new", "cur"} {
		ents, _ := os.ReadDir(filepath.Join(outbox, sub))
		for _, e := range ents {
			raw, err := os.ReadFile(filepath.Join(outbox, sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			head, body := splitHeader(raw)
			var kept []string
			for _, line := range strings.Split(string(head), "\n") {
				if !strings.HasPrefix(strings.ToLower(line), "date:") {
					kept = append(kept, line)
				}
			}
			o.Outbox[sub+"/"+e.Name()] = strings.Join(kept, "\n") + string(body)
		}
	}
	return o
}

// String summarises an outcome's counts.
func (o outcome) String() string {
	return fmt.Sprintf("messages %v, series %v, replies %v, %d outbox files", o.Messages, o.Series, o.Replies, len(o.Outbox))
}

// diff describes how o differs from want (empty if it does not).
func (o outcome) diff(want outcome) string {
	var d []string
	for _, c := range []struct {
		what      string
		got, want map[string]int
	}{{"messages", o.Messages, want.Messages}, {"series", o.Series, want.Series}, {"replies", o.Replies, want.Replies}} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			d = append(d, fmt.Sprintf("%s %v, want %v", c.what, c.got, c.want))
		}
	}
	if want.Outbox == nil {
		return strings.Join(d, "; ")
	}
	var names []string
	for name := range o.Outbox {
		names = append(names, name)
	}
	for name := range want.Outbox {
		if _, ok := o.Outbox[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	bad := 0
	for _, name := range names {
		got, ok1 := o.Outbox[name]
		exp, ok2 := want.Outbox[name]
		switch {
		case !ok1:
			d = append(d, "outbox lacks "+name)
		case !ok2:
			d = append(d, "outbox has an extra "+name)
		case got != exp:
			d = append(d, "outbox "+name+" differs")
		default:
			continue
		}
		if bad++; bad == 5 {
			d = append(d, "...")
			break
		}
	}
	return strings.Join(d, "; ")
}

// scaled is o's counts times k plus p's (the outbox is left out).
func (o outcome) scaled(k int, p outcome) outcome {
	sum := func(a, b map[string]int) map[string]int {
		out := map[string]int{}
		for s, n := range a {
			out[s] += k * n
		}
		for s, n := range b {
			out[s] += n
		}
		return out
	}
	return outcome{Messages: sum(o.Messages, p.Messages), Series: sum(o.Series, p.Series), Replies: sum(o.Replies, p.Replies)}
}

// replayRun replays mbox into a fresh state and outbox with the given
// worker pool size (0: the default) and the real analyzer.
func replayRun(t *testing.T, mbox string, workers int, an Analyzer) (outcome, time.Duration) {
	t.Helper()
	e := newEnv(t, Options{Workers: workers}, deliver.Options{}, nil, nil)
	e.an.real = an
	e.out.Sync = false // dry-run, as replay runs by default
	start := time.Now()
	st, err := e.d.Replay(context.Background(), []string{mbox})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	o := outcomeOf(t, e.st, e.out.Dir)
	if fmt.Sprint(st.Messages) != fmt.Sprint(o.Messages) || fmt.Sprint(st.Replies) != fmt.Sprint(o.Replies) {
		t.Fatalf("replay reported %v %v, the store holds %v", st.Messages, st.Replies, o)
	}
	return o, took
}

// TestReplayDeterministic replays copies of the seed threads (fresh
// Message-IDs) into fresh state, repeatedly, with the worker pool at its
// default size and at 1: every run ends with the same counts and the same
// outbox, and the counts are those of the seeds replayed one copy at a
// time (no part is late, every held message is decided). 5,000 messages
// run scheduling passes at 2,000 and 4,000 while the input is still read;
// 4,000 (and 2,000) messages also run the final pass right after one that
// handed out series still in analysis (the case that marked finished
// series late). -short runs 2,000 messages twice per pool size; under
// -race (about 15 times slower) 2,000 messages once per pool size.
func TestReplayDeterministic(t *testing.T) {
	sizes := []struct{ n, reps int }{{5000, 10}, {4000, 3}}
	switch {
	case raceEnabled:
		sizes = []struct{ n, reps int }{{2000, 1}}
	case testing.Short():
		sizes = []struct{ n, reps int }{{2000, 2}}
	}
	an, err := realAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	seeds := seedRaws(t)
	for _, size := range sizes {
		t.Run(fmt.Sprint(size.n), func(t *testing.T) {
			replayDeterministic(t, an, len(seeds), size.n, size.reps)
		})
	}
}

// replayDeterministic replays n copied seed messages reps times per pool
// size and compares every outcome with the reference and the first run.
func replayDeterministic(t *testing.T, an Analyzer, nseeds, n, reps int) {
	dir := t.TempDir()
	raws := seedCopies(t, n)
	mbox := writeMbox(t, filepath.Join(dir, "copies.mbox"), raws)

	// The reference: one copy of the seeds, and the cut last copy, each
	// replayed alone (one scheduling pass, nothing else in flight).
	one, _ := replayRun(t, writeMbox(t, filepath.Join(dir, "one.mbox"), raws[:nseeds]), 1, an)
	var rest outcome
	if k := n % nseeds; k > 0 {
		rest, _ = replayRun(t, writeMbox(t, filepath.Join(dir, "rest.mbox"), raws[n-k:]), 1, an)
	}
	want := one.scaled(n/nseeds, rest)
	if want.Messages[store.StatusDone] == 0 || want.Replies[store.ReplyDryRun] == 0 ||
		want.Messages[store.StatusLate] != 0 || want.Messages[store.StatusPending] != 0 {
		t.Fatalf("the seeds replayed alone give %v: want done parts and replies, nothing late or held", one)
	}
	t.Logf("want %v", want)

	var first *outcome
	for _, workers := range []int{0, 1} {
		for i := 0; i < reps; i++ {
			o, took := replayRun(t, mbox, workers, an)
			t.Logf("workers=%d run %d: %v in %v", workers, i, o, took.Round(time.Millisecond))
			if d := o.diff(want); d != "" {
				t.Fatalf("workers=%d run %d: %s", workers, i, d)
			}
			if len(o.Outbox) != want.Replies[store.ReplyDryRun] {
				t.Fatalf("workers=%d run %d: %d outbox files for %v", workers, i, len(o.Outbox), o.Replies)
			}
			if first == nil {
				first = &o
				continue
			}
			if d := o.diff(*first); d != "" {
				t.Fatalf("workers=%d run %d differs from the first run: %s", workers, i, d)
			}
		}
	}
}
