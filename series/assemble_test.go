package series

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/mail"
)

var t0 = time.Date(2023, 8, 11, 1, 3, 8, 0, time.UTC)

// msg is a compact description of a test message.
type msg struct {
	id, from, subject string
	min               int    // minutes after t0
	irt               string // In-Reply-To
	refs              string // space-separated References
	diff              bool
}

func (m msg) build() *mail.Message {
	from := m.from
	if from == "" {
		from = "author@example.com"
	}
	out := &mail.Message{
		MessageID: m.id,
		InReplyTo: m.irt,
		From:      mail.Address{Addr: from},
		Date:      t0.Add(time.Duration(m.min) * time.Minute),
		Subject:   mail.ParseSubject(m.subject),
	}
	if m.refs != "" {
		out.References = strings.Fields(m.refs)
	}
	if m.diff {
		out.Diff = "diff --git a/x b/x\n"
		out.InlineReview = out.Subject.Reply || (out.InReplyTo != "" && !out.Subject.Patch)
	}
	return out
}

func build(ms []msg) []*mail.Message {
	var out []*mail.Message
	for _, m := range ms {
		out = append(out, m.build())
	}
	return out
}

// summary renders series compactly for comparison.
func summary(ss []*Series) []string {
	var out []string
	for _, s := range ss {
		var parts []string
		if s.Cover != nil {
			parts = append(parts, "0:"+s.Cover.MessageID)
		}
		for _, p := range s.Patches {
			parts = append(parts, fmt.Sprintf("%d:%s", p.Number, p.Msg.MessageID))
		}
		line := fmt.Sprintf("%s v%d/%d [%s]", s.ID, s.Version, s.Total, strings.Join(parts, " "))
		if s.Incomplete != "" {
			line += " (" + s.Incomplete + ")"
		}
		if len(s.Replies) > 0 {
			var r []string
			for _, m := range s.Replies {
				r = append(r, m.MessageID)
			}
			line += " replies=" + strings.Join(r, ",")
		}
		if len(s.Review) > 0 {
			var r []string
			for _, p := range s.Review {
				r = append(r, fmt.Sprintf("%d:%s", p.Number, p.Msg.MessageID))
			}
			line += " review=" + strings.Join(r, ",")
		}
		if s.Supersedes != "" {
			line += " supersedes=" + s.Supersedes
		}
		if s.SupersededBy != "" {
			line += " supersededby=" + s.SupersededBy
		}
		out = append(out, line)
	}
	return out
}

func TestAssemble(t *testing.T) {
	tests := []struct {
		name  string
		msgs  []msg
		want  []string
		notes []string // substrings expected in the first series' notes
	}{
		{
			name: "cover and patches threaded, arriving out of order",
			msgs: []msg{
				{id: "p2", subject: "[PATCH 2/3] b", min: 2, irt: "c", refs: "c"},
				{id: "c", subject: "[PATCH 0/3] series", min: 0},
				{id: "p3", subject: "[PATCH 3/3] c", min: 3, irt: "c", refs: "c"},
				{id: "p1", subject: "[PATCH 1/3] a", min: 1, irt: "c", refs: "c"},
			},
			want: []string{"c v1/3 [0:c 1:p1 2:p2 3:p3]"},
		},
		{
			name: "missing parts are reported, not dropped",
			msgs: []msg{
				{id: "c", subject: "[PATCH v2 0/5] s", min: 0},
				{id: "p1", subject: "[PATCH v2 1/5] a", min: 1, irt: "c"},
				{id: "p3", subject: "[PATCH v2 3/5] c", min: 3, irt: "c"},
			},
			want: []string{"c v2/5 [0:c 1:p1 3:p3] (missing 2/5, 4/5, 5/5)"},
		},
		{
			name: "cover letter alone",
			msgs: []msg{{id: "c", subject: "[RFC PATCH 0/2] s"}},
			want: []string{"c v1/2 [0:c] (missing 1/2, 2/2)"},
		},
		{
			name: "patches threaded to a cover letter that is not in the input",
			msgs: []msg{
				{id: "p1", subject: "[PATCH 1/2] a", min: 1, irt: "gone", refs: "gone"},
				{id: "p2", subject: "[PATCH 2/2] b", min: 2, irt: "gone", refs: "gone"},
			},
			want:  []string{"p1 v1/2 [1:p1 2:p2]"},
			notes: []string{"thread root <gone> (cover letter?) not in input"},
		},
		{
			name: "duplicates: same Message-ID twice, same n/N twice",
			msgs: []msg{
				{id: "p1", subject: "[PATCH 1/2] a", min: 1},
				{id: "p1", subject: "[PATCH 1/2] a", min: 1},
				{id: "p2", subject: "[PATCH 2/2] b", min: 2, irt: "p1"},
				{id: "p2b", subject: "[PATCH 2/2] b", min: 3, irt: "p1"},
			},
			want:  []string{"p1 v1/2 [1:p1 2:p2]"},
			notes: []string{"duplicate 2/2 <p2b> ignored (kept <p2>)", "duplicate message <p1> seen 1 more time(s)"},
		},
		{
			name: "v2 supersedes v1, sent in reply to the v1 cover",
			msgs: []msg{
				{id: "c1", subject: "[PATCH 0/2] pipe: rework", min: 0},
				{id: "a1", subject: "[PATCH 1/2] pipe: a", min: 1, irt: "c1"},
				{id: "b1", subject: "[PATCH 2/2] pipe: b", min: 2, irt: "c1"},
				{id: "c2", subject: "[PATCH v2 0/2] pipe: rework", min: 600, irt: "c1", refs: "c1"},
				{id: "a2", subject: "[PATCH v2 1/2] pipe: a", min: 601, irt: "c2", refs: "c1 c2"},
				{id: "b2", subject: "[PATCH v2 2/2] pipe: b", min: 602, irt: "c2", refs: "c1 c2"},
			},
			want: []string{
				"c1 v1/2 [0:c1 1:a1 2:b1] supersededby=c2",
				"c2 v2/2 [0:c2 1:a2 2:b2] supersedes=c1",
			},
		},
		{
			name: "versions matched by patch title when there is no cover",
			msgs: []msg{
				{id: "x1", subject: "[PATCH] foo: fix bar", min: 0},
				{id: "x3", subject: "[PATCH v3] foo: fix bar", min: 200},
				{id: "x2", subject: "[PATCH v2] Foo: fix  bar.", min: 100},
				{id: "y", from: "other@example.com", subject: "[PATCH v4] foo: fix bar", min: 300},
			},
			want: []string{
				"x1 v1/1 [1:x1] supersededby=x2",
				"x2 v2/1 [1:x2] supersedes=x1 supersededby=x3",
				"x3 v3/1 [1:x3] supersedes=x2",
				"y v4/1 [1:y]",
			},
		},
		{
			name: "unthreaded parts joined by author, version and time window",
			msgs: []msg{
				{id: "u1", subject: "[PATCH v3 1/3] a", min: 0},
				{id: "u3", subject: "[PATCH v3 3/3] c", min: 5},
				{id: "u2", subject: "[PATCH v3 2/3] b", min: 2},
				{id: "late", subject: "[PATCH v3 2/3] b", min: 5 * 24 * 60},
				{id: "other", from: "someone@example.com", subject: "[PATCH v3 2/3] b", min: 3},
			},
			want: []string{
				"u1 v3/3 [1:u1 2:u2 3:u3]",
				"other v3/3 [2:other] (missing 1/3, 3/3)",
				"late v3/3 [2:late] (missing 1/3, 3/3)",
			},
			notes: []string{"joined by author, version and time"},
		},
		{
			name: "format-patch --thread of a branch: one From per commit author, one series",
			msgs: []msg{
				{id: "f1", from: "linus@example.com", subject: "[PATCH 1/3] a", min: 0},
				{id: "f2", from: "david@example.com", subject: "[PATCH 2/3] b", min: 0, irt: "f1", refs: "f1"},
				{id: "f3", from: "linus@example.com", subject: "[PATCH 3/3] c", min: 0, irt: "f1", refs: "f1"},
			},
			want: []string{"f1 v1/3 [1:f1 2:f2 3:f3]"},
		},
		{
			name: "two threaded series with the same shape are not merged",
			msgs: []msg{
				{id: "a1", subject: "[PATCH 1/2] a", min: 0},
				{id: "a2", subject: "[PATCH 2/2] a", min: 1, irt: "a1"},
				{id: "b1", subject: "[PATCH 1/2] b", min: 2},
				{id: "b2", subject: "[PATCH 2/2] b", min: 3, irt: "b1"},
			},
			want: []string{"a1 v1/2 [1:a1 2:a2]", "b1 v1/2 [1:b1 2:b2]"},
		},
		{
			name: "replies, replies to replies, inline review diff, noise",
			msgs: []msg{
				{id: "p", subject: "[PATCH] pipe: x", min: 0, diff: true},
				{id: "r1", from: "rev@example.com", subject: "Re: [PATCH] pipe: x", min: 10, irt: "p", refs: "p"},
				{id: "r2", subject: "Re: [PATCH] pipe: x", min: 20, irt: "r1", refs: "p r1"},
				{id: "fix", from: "rev@example.com", subject: "Re: [PATCH] pipe: x", min: 30, irt: "r2", refs: "p r1 r2", diff: true},
				{id: "noise", from: "x@example.com", subject: "Lunch?", min: 5},
				{id: "orphan", from: "x@example.com", subject: "Re: something else", min: 6, irt: "unknown"},
				{id: "bot", from: "bot@example.com", subject: "Re: [PATCH] pipe: x", min: 40, irt: "p"},
			},
			want: []string{"p v1/1 [1:p] replies=r1,r2,fix,bot review=1:fix"},
		},
		{
			name: "reply whose parent is missing attaches by thread root",
			msgs: []msg{
				{id: "c", subject: "[PATCH 0/2] s", min: 0},
				{id: "p1", subject: "[PATCH 1/2] a", min: 1, irt: "c", refs: "c"},
				{id: "p2", subject: "[PATCH 2/2] b", min: 2, irt: "c", refs: "c"},
				{id: "r", from: "rev@example.com", subject: "Re: [PATCH 2/2] b", min: 9, irt: "missing-reply", refs: "c-other missing-reply"},
				{id: "r2", from: "rev@example.com", subject: "Re: [PATCH 2/2] b", min: 9, irt: "missing-reply", refs: "c missing-reply"},
			},
			want: []string{"c v1/2 [0:c 1:p1 2:p2] replies=r2"},
		},
		{
			name: "a non-[PATCH] message with a diff is a patch; a reply without a patch thread is not a series",
			msgs: []msg{
				{id: "gp", subject: "fs: plain format-patch -k subject", min: 0, diff: true},
				{id: "q", subject: "Re: question", min: 1, irt: "nowhere", diff: true},
			},
			want: []string{"gp v1/1 [1:gp]"},
		},
		{
			name: "AUTOSEL series for different trees stay apart",
			msgs: []msg{
				{id: "a55", from: "sashal@kernel.org", subject: "[PATCH AUTOSEL 5.5 1/2] a", min: 0},
				{id: "a54", from: "sashal@kernel.org", subject: "[PATCH AUTOSEL 5.4 1/2] a", min: 1},
			},
			want: []string{"a55 v1/2 [1:a55] (missing 2/2)", "a54 v1/2 [1:a54] (missing 2/2)"},
		},
		{
			name: "reference loop does not hang",
			msgs: []msg{
				{id: "l1", subject: "Re: [PATCH] x", irt: "l2", min: 1},
				{id: "l2", subject: "Re: [PATCH] x", irt: "l1", min: 2},
				{id: "p", subject: "[PATCH] x", irt: "l1", min: 3, diff: true},
			},
			want: []string{"p v1/1 [1:p]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Assemble(build(tt.msgs), Options{})
			if !reflect.DeepEqual(summary(got), tt.want) {
				t.Errorf("Assemble:\n got %q\nwant %q", summary(got), tt.want)
			}
			for _, n := range tt.notes {
				if len(got) == 0 || !strings.Contains(strings.Join(got[0].Notes, "\n"), n) {
					t.Errorf("notes %q lack %q", got[0].Notes, n)
				}
			}
		})
	}
}

// TestAssembleDeterministic shuffles the input: the output must not change.
func TestAssembleDeterministic(t *testing.T) {
	ms := []msg{
		{id: "c", subject: "[PATCH 0/3] s", min: 0},
		{id: "p1", subject: "[PATCH 1/3] a", min: 1, irt: "c"},
		{id: "p2", subject: "[PATCH 2/3] b", min: 1, irt: "c"},
		{id: "r", subject: "Re: [PATCH 2/3] b", min: 4, irt: "p2"},
		{id: "s", subject: "[PATCH] other", min: 1},
		{id: "s2", subject: "[PATCH v2] other", min: 1},
		{id: "u1", subject: "[PATCH 1/2] u", min: 7},
		{id: "u2", subject: "[PATCH 2/2] u", min: 8},
	}
	want := summary(Assemble(build(ms), Options{}))
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 50; i++ {
		in := build(ms)
		rng.Shuffle(len(in), func(a, b int) { in[a], in[b] = in[b], in[a] })
		if got := summary(Assemble(in, Options{})); !reflect.DeepEqual(got, want) {
			t.Fatalf("shuffle %d:\n got %q\nwant %q", i, got, want)
		}
	}
}

// TestAssembleSendersWithoutDomain: two authors whose From gives no
// address (each gets a stand-in in .invalid) are not one author: their
// unthreaded parts stay two incomplete series.
func TestAssembleSendersWithoutDomain(t *testing.T) {
	var msgs []*mail.Message
	for i, from := range []string{"Alice A <alice>", "Bob B <bob>"} {
		raw := fmt.Sprintf("From: %s\nSubject: [PATCH %d/2] foo: change\nMessage-ID: <nd%d@x>\nDate: Mon, 1 Jan 2024 00:0%d:00 +0000\n\n"+
			"x\n---\ndiff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n", from, i+1, i, i)
		m, err := mail.Parse(strings.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	ss := Assemble(msgs, Options{})
	if len(ss) != 2 {
		t.Fatalf("%d series, want 2: %v", len(ss), summary(ss))
	}
	for _, s := range ss {
		if s.Incomplete == "" {
			t.Errorf("series %s is complete: %v", s.ID, summary(ss))
		}
	}
}
