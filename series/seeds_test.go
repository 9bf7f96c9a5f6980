package series

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/autosel-bot/autosel-bot/mail"
)

func loadSeed(t *testing.T, name string) []*mail.Message {
	t.Helper()
	msgs, errs := mail.Load(context.Background(), []string{filepath.Join("..", "testdata", "seeds", name)}, nil)
	for _, e := range errs {
		t.Errorf("load %s: %v", name, e)
	}
	return msgs
}

// checkDiffParses verifies that a seed diff is a well-formed git diff.
func checkDiffParses(t *testing.T, m *mail.Message, wantFiles ...string) {
	t.Helper()
	files, _, err := gitdiff.Parse(strings.NewReader(m.Diff))
	if err != nil {
		t.Errorf("diff of <%s> does not parse: %v", m.MessageID, err)
		return
	}
	var got []string
	for _, f := range files {
		got = append(got, f.NewName)
	}
	if strings.Join(got, " ") != strings.Join(wantFiles, " ") {
		t.Errorf("diff of <%s> touches %v, want %v", m.MessageID, got, wantFiles)
	}
}

func authors(ms []*mail.Message) string {
	var s []string
	for _, m := range ms {
		s = append(s, m.From.Name)
	}
	return strings.Join(s, ", ")
}

func TestSeed002WatchQueue(t *testing.T) {
	msgs := loadSeed(t, "002-watch-queue-v5.mbox")
	if len(msgs) != 6 {
		t.Fatalf("%d messages, want 6", len(msgs))
	}
	ss := Assemble(msgs, Options{})
	if len(ss) != 1 {
		t.Fatalf("%d series, want 1: %+v", len(ss), ss)
	}
	s := ss[0]
	if s.Version != 5 || s.Total != 2 || len(s.Patches) != 2 || s.Incomplete != "" || s.Cover != nil {
		t.Errorf("series v%d %d/%d cover=%v incomplete=%q", s.Version, len(s.Patches), s.Total, s.Cover, s.Incomplete)
	}
	if s.ID != "20230811010309.20196-1-zhanghongchen@loongson.cn" || s.Title != "watch_queue: refactor post_one_notification" {
		t.Errorf("series %q %q", s.ID, s.Title)
	}
	if s.Patches[0].Number != 1 || s.Patches[1].Number != 2 ||
		s.Patches[1].Msg.Subject.Title != "pipe: use __pipe_{lock,unlock} instead of spinlock" {
		t.Errorf("patches out of order: %+v %+v", s.Patches[0], s.Patches[1])
	}
	checkDiffParses(t, s.Patches[0].Msg, "fs/pipe.c", "include/linux/watch_queue.h", "kernel/watch_queue.c")
	checkDiffParses(t, s.Patches[1].Msg, "fs/pipe.c", "include/linux/pipe_fs_i.h", "kernel/watch_queue.c")
	if got := authors(s.Replies); got != "David Howells, Hongchen Zhang, Hongchen Zhang, Matthew Wilcox" {
		t.Errorf("replies: %s", got)
	}
	if len(s.Review) != 0 {
		t.Errorf("quoted diffs in replies taken as review patches: %+v", s.Review)
	}
	// The quoted hunk in David's review is not his diff.
	if d := s.Replies[0]; d.Diff != "" || !strings.Contains(d.Body, "This mustn't sleep.") {
		t.Errorf("David's reply: diff %q", d.Diff)
	}
	// Hongchen's replies are format=flowed.
	if !strings.Contains(s.Replies[1].Body, "Where is the usage scenario for post_one_notification, or what usage scenarios will it be used in the future?") {
		t.Errorf("flowed text not joined: %q", s.Replies[1].Body)
	}
	if tr := s.Patches[0].Msg.Trailers; len(tr) != 1 || tr[0].Key != "Signed-off-by" {
		t.Errorf("trailers %+v", tr)
	}
}

func TestSeed000Autosel(t *testing.T) {
	msgs := loadSeed(t, "000-pipe-exclusive-autosel.mbox")
	ss := Assemble(msgs, Options{})
	if len(ss) != 1 {
		t.Fatalf("%d series, want 1", len(ss))
	}
	s := ss[0]
	if len(s.Patches) != 1 || s.Patches[0].Number != 542 || s.Total != 542 {
		t.Fatalf("patches %+v total %d", s.Patches, s.Total)
	}
	p := s.Patches[0].Msg
	if p.Subject.Autosel != "5.5" || p.UpstreamCommit != "0ddad21d3e99c743a3aa473121dc5561679e26bb" ||
		p.Author.Addr != "torvalds@linux-foundation.org" || p.From.Addr != "sashal@kernel.org" {
		t.Errorf("AUTOSEL patch: autosel %q upstream %q author %v from %v", p.Subject.Autosel, p.UpstreamCommit, p.Author, p.From)
	}
	if !strings.HasPrefix(s.Incomplete, "missing 1/542, 2/542") {
		t.Errorf("Incomplete = %q", s.Incomplete)
	}
	checkDiffParses(t, p, "fs/coredump.c", "fs/pipe.c", "fs/splice.c", "include/linux/pipe_fs_i.h")
	if len(s.Review) != 1 || len(s.Replies) != 1 {
		t.Fatalf("review %d replies %d, want 1 and 1", len(s.Review), len(s.Replies))
	}
	r := s.Review[0]
	if !r.InReview || r.Number != 542 || r.Msg.From.Name != "Andrei Vagin" || !r.Msg.InlineReview {
		t.Errorf("review patch %+v", r)
	}
	checkDiffParses(t, r.Msg, "fs/pipe.c")
	if !strings.Contains(r.Msg.Diff, "+\tif (!pipe->writers || wake_next_reader)\n") || strings.Contains(r.Msg.Diff, "coredump") {
		t.Errorf("quick fix diff wrong:\n%s", r.Msg.Diff)
	}
	if r.Msg.DiffLine < 40 || !strings.Contains(r.Msg.Body, "\n> diff --git a/fs/coredump.c") {
		t.Errorf("reply body does not hold the quoted patch under the fix (diff line %d)", r.Msg.DiffLine)
	}
}

func TestSeed003NotificationQueue(t *testing.T) {
	msgs := loadSeed(t, "003-pipe-notification-v3.mbox")
	ss := Assemble(msgs, Options{})
	if len(ss) != 1 {
		t.Fatalf("%d series, want 1", len(ss))
	}
	s := ss[0]
	if s.Cover == nil || s.Version != 3 || !s.RFC || s.Total != 11 || len(s.Patches) != 0 {
		t.Errorf("cover-only series: %+v", s)
	}
	if s.Title != "pipe: Notification queue preparation" || !strings.HasPrefix(s.Incomplete, "missing 1/11, 2/11") {
		t.Errorf("title %q incomplete %q", s.Title, s.Incomplete)
	}
	if got := authors(s.Replies); got != "Linus Torvalds, David Howells, Linus Torvalds, David Howells" {
		t.Errorf("replies: %s", got)
	}
	if len(s.Review) != 1 {
		t.Fatalf("review %+v", s.Review)
	}
	d := s.Review[0].Msg
	// Quoted-printable windows-1252 decoded, tabs restored.
	checkDiffParses(t, d, "fs/pipe.c")
	if !strings.Contains(d.Diff, "+\t\t\t\t\twake_up_locked_poll(\n") || !strings.Contains(d.Body, "each thread can run on its\nown CPU.") {
		t.Errorf("David's cumulative patch:\n%s", d.Diff)
	}
}

func TestSeed004Epoll(t *testing.T) {
	msgs := loadSeed(t, "004-epoll-autoremove.mbox")
	ss := Assemble(msgs, Options{})
	if len(ss) != 1 {
		t.Fatalf("%d series, want 1", len(ss))
	}
	s := ss[0]
	if len(s.Patches) != 1 || s.Patches[0].Number != 2 || s.Incomplete != "missing 1/2" {
		t.Errorf("patches %+v incomplete %q", s.Patches, s.Incomplete)
	}
	p := s.Patches[0].Msg
	checkDiffParses(t, p, "fs/eventpoll.c")
	tags := mail.StableTags(p)
	if len(tags) != 1 || tags[0].Since != "" || !tags[0].Plus {
		t.Errorf("stable tags %+v", tags)
	}
	if len(s.Replies) != 2 || len(s.Review) != 0 {
		t.Fatalf("replies %d review %d", len(s.Replies), len(s.Review))
	}
	bot := s.Replies[0]
	if bot.From.Addr != "sashal@kernel.org" || len(bot.To) != 2 || len(bot.Cc) != 10 {
		t.Errorf("bot headers: from %v to %v cc %d", bot.From, bot.To, len(bot.Cc))
	}
	for _, line := range []string{
		"[This is an automated email]",
		"The bot has tested the following trees: v5.6.7, v5.4.35, v4.19.118, v4.14.177, v4.9.220, v4.4.220.\n\nv5.6.7: Build OK!\n",
		"v4.19.118: Failed to apply! Possible dependencies:\n    1b53734bd0b2 (\"epoll: fix possible lost wakeup on epoll_ctl() path\")\n",
		"NOTE: The patch will not be queued to stable trees until it is upstream.\n\nHow should we proceed with this patch?\n\n-- \nThanks\nSasha\n",
	} {
		if !strings.Contains(bot.Body, line) {
			t.Errorf("bot body lacks %q", line)
		}
	}
	if tr := s.Replies[1].Trailers; len(tr) != 1 || tr[0].Key != "Reviewed-by" {
		t.Errorf("Jason's trailers %+v", tr)
	}
}
