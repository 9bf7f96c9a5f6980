package daemon

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/botcmd"
	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// hostileForgedListID replays issue 37 point 8: a mail read from a
// mailbox that is no allowed list forges the allowed list's List-Id and
// To, with 20 Cc recipients of its choosing. The bot must send nothing:
// the list is the mailbox the mail was read from.
func hostileForgedListID(t *testing.T) {
	var cc []string
	for i := 0; i < 20; i++ {
		cc = append(cc, fmt.Sprintf("victim%d@vger.kernel.org", i))
	}
	dir := t.TempDir()
	forged := writeMbox(t, dir, "private.mbox", hostileMail("forged@x", "[PATCH] forged", "Mallory <m@vger.kernel.org>",
		"Cc: "+strings.Join(cc, ", "), "List-Id: <linux-kernel.vger.kernel.org>"))
	genuine := writeMbox(t, dir, "lkml.mbox", hostileMail("genuine@x", "[PATCH] genuine", "Author <a@vger.kernel.org>"))
	snd := &captureSender{}
	e := newEnv(t, Options{Lists: []ListOrigin{{Origin: "*/lkml.mbox/", List: "linux-kernel@vger.kernel.org"}}},
		deliver.Options{Send: true, Policy: deliver.Policy{Allow: deliver.Allow{Lists: []string{"linux-kernel.vger.kernel.org"}}}}, snd, nil)
	e.an.real = realCompose(replyOpts())
	if _, err := e.d.Replay(context.Background(), []string{forged, genuine}); err != nil {
		t.Fatal(err)
	}
	if snd.sent() != 1 {
		t.Fatalf("%d replies sent, want 1 (the genuine list mail only)", snd.sent())
	}
	for _, r := range snd.rcpt[0] {
		if strings.HasPrefix(r, "victim") || r == "m@vger.kernel.org" {
			t.Errorf("reply sent to %s of the forged mail", r)
		}
	}
	held, err := e.st.Replies(context.Background(), store.ReplyHeld)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) != 1 || held[0].List != "" {
		t.Fatalf("held replies %+v, want the forged mail's, on no list", held)
	}
}

// hostileOutsideThread: a reply the analysis addressed to people who are
// not in the series' own headers (trailers a sender writes, a buggy
// composer) goes to the thread only: the 20 extra addresses are dropped
// from the headers and the envelope.
func hostileOutsideThread(t *testing.T) {
	snd := &captureSender{}
	e := newEnv(t, Options{StableList: "stable@vger.kernel.org"}, deliver.Options{Send: true, Policy: deliver.Policy{MaxRecipients: 50}}, snd, nil)
	e.an.real = func(ctx context.Context, s *series.Series, h *botcmd.History) (*Result, error) {
		m := s.Patches[0].Msg
		var cc []string
		for i := 0; i < 20; i++ {
			cc = append(cc, fmt.Sprintf("Victim %d <victim%d@example.com>", i, i))
		}
		raw := "From: autosel-bot <autosel-bot@bot.example.org>\nTo: " + m.From.Addr + "\nCc: " + strings.Join(cc, ",\n ") +
			", list@vger.kernel.org, stable@vger.kernel.org\nSubject: Re: x\nMessage-ID: <thread@bot>\nIn-Reply-To: <" + m.MessageID + ">\n\nbody\n"
		return &Result{Replies: []OutMail{{MessageID: "thread@bot", InReplyTo: m.MessageID, Raw: []byte(raw)}}}, nil
	}
	mbox := writeMbox(t, t.TempDir(), "a.mbox", hostileMail("thread@x", "[PATCH] x", "Author <author@example.com>"))
	if _, err := e.d.Replay(context.Background(), []string{mbox}); err != nil {
		t.Fatal(err)
	}
	if snd.sent() != 1 {
		t.Fatalf("%d sent, want 1", snd.sent())
	}
	got := strings.Join(snd.rcpt[0], " ")
	if got != "author@example.com list@vger.kernel.org stable@vger.kernel.org" {
		t.Errorf("envelope %q, want the author, the list and stable", got)
	}
	for _, m := range outboxMails(t, e.out.Dir) {
		for _, a := range append(m.To, m.Cc...) {
			if strings.HasPrefix(a.Addr, "victim") {
				t.Errorf("reply headers still name %s", a.Addr)
			}
		}
	}
}
