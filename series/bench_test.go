package series

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/mail"
)

// genMbox writes an mbox of at least n messages (the last series is
// completed) and returns it with the exact count resembling a busy kernel list:
// series of 1-8 patches in up to 3 versions (most with a cover letter, some
// sent unthreaded), replies and replies to replies, inline review diffs,
// base64 and quoted-printable bodies, and unrelated noise.
func genMbox(n int, seed int64) ([]byte, int) {
	rng := rand.New(rand.NewSource(seed))
	var buf bytes.Buffer
	count := 0
	date := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(id, from, subject, irt, refs, extraHdr, body string) {
		date = date.Add(time.Duration(rng.Intn(90)+1) * time.Second)
		fmt.Fprintf(&buf, "From %s %s\n", from, date.Format("Mon Jan _2 15:04:05 2006"))
		fmt.Fprintf(&buf, "From: Dev %s <%s>\nTo: linux-kernel@vger.kernel.org\nCc: linux-fsdevel@vger.kernel.org\n", from[:3], from)
		fmt.Fprintf(&buf, "Subject: %s\nDate: %s\nMessage-ID: <%s>\n", subject, date.Format(time.RFC1123Z), id)
		if irt != "" {
			fmt.Fprintf(&buf, "In-Reply-To: <%s>\nReferences: %s\n", irt, refs)
		}
		buf.WriteString("List-Id: <linux-kernel.vger.kernel.org>\n")
		buf.WriteString(extraHdr)
		buf.WriteString("\n")
		for _, l := range strings.SplitAfter(body, "\n") {
			if strings.HasPrefix(l, "From ") {
				buf.WriteString(">")
			}
			buf.WriteString(l)
		}
		buf.WriteString("\n")
		count++
	}
	diff := func(file string, k int) string {
		var d strings.Builder
		fmt.Fprintf(&d, "diff --git a/%s b/%s\nindex 1234567..89abcde 100644\n--- a/%s\n+++ b/%s\n", file, file, file, file)
		for h := 0; h < 2+k%3; h++ {
			fmt.Fprintf(&d, "@@ -%d,7 +%d,7 @@ static int func_%d(struct pipe_inode_info *pipe)\n", 100*h+10, 100*h+10, h)
			d.WriteString(" \tint ret = 0;\n \n \tspin_lock_irq(&pipe->rd_wait.lock);\n")
			fmt.Fprintf(&d, "-\twake_up_interruptible(&pipe->wait%d);\n+\twake_up_interruptible_all(&pipe->wait%d);\n", h, h)
			d.WriteString(" \tspin_unlock_irq(&pipe->rd_wait.lock);\n \n \treturn ret;\n")
		}
		return d.String()
	}
	for sid := 0; count < n; sid++ {
		author := fmt.Sprintf("dev%d@example.org", rng.Intn(300))
		total := []int{1, 1, 1, 2, 2, 3, 4, 5, 8}[rng.Intn(9)]
		versions := 1 + rng.Intn(3)
		unthreaded := rng.Intn(10) == 0
		var prevCover string
		for v := 1; v <= versions; v++ {
			vtag := ""
			if v > 1 {
				vtag = fmt.Sprintf(" v%d", v)
			}
			num := func(i int) string {
				if total == 1 {
					return ""
				}
				return fmt.Sprintf(" %d/%d", i, total)
			}
			root := ""
			refs := ""
			if total > 1 && !unthreaded {
				root = fmt.Sprintf("s%d.v%d.0@example.org", sid, v)
				irt, rr := "", ""
				if prevCover != "" {
					irt, rr = prevCover, "<"+prevCover+">"
				}
				write(root, author, fmt.Sprintf("[PATCH%s 0/%d] subsys%d: rework %d", vtag, total, sid%40, sid), irt, rr,
					"", "This series reworks things.\n\nChanges in v2:\n - stuff\n")
				refs = "<" + root + ">"
				prevCover = root
			}
			for i := 1; i <= total; i++ {
				id := fmt.Sprintf("s%d.v%d.%d@example.org", sid, v, i)
				body := fmt.Sprintf("subsys: do thing %d\n\nLonger explanation of the change, wrapped\nat seventy-two columns as usual.\n\n"+
					"Fixes: 0123456789ab (\"subsys: old bug\")\nCc: stable@vger.kernel.org # 5.%d+\nSigned-off-by: Dev <%s>\n---\n f.c | 4 ++--\n\n%s-- \n2.43.0\n",
					i, rng.Intn(15), author, diff(fmt.Sprintf("fs/f%d.c", i), i))
				hdr := ""
				switch rng.Intn(8) {
				case 0:
					hdr = "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n"
					enc := base64.StdEncoding.EncodeToString([]byte(body))
					var wrapped strings.Builder
					for len(enc) > 76 {
						wrapped.WriteString(enc[:76] + "\n")
						enc = enc[76:]
					}
					wrapped.WriteString(enc + "\n")
					body = wrapped.String()
				case 1:
					hdr = "MIME-Version: 1.0\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n"
					body = strings.ReplaceAll(strings.ReplaceAll(body, "=", "=3D"), "\t", "=09")
				}
				irt := root
				if root == "" && !unthreaded && total == 1 && prevCover != "" {
					irt, refs = prevCover, "<"+prevCover+">"
				}
				write(id, author, fmt.Sprintf("[PATCH%s%s] subsys%d: do thing %d", vtag, num(i), sid%40, i), irt, refs, hdr, body)
				if total == 1 {
					prevCover = id
				}
				// Replies.
				for r := 0; r < rng.Intn(3); r++ {
					rid := fmt.Sprintf("r%d.%d.%d.%d@example.net", sid, v, i, r)
					rbody := "On Mon, someone wrote:\n> +\twake_up_interruptible_all(&pipe->wait0);\n\nLooks good.\n\nReviewed-by: Rev <rev@example.net>\n"
					if rng.Intn(8) == 0 {
						rbody = "How about this instead:\n\n" + diff("fs/f.c", 0) + "\nThanks\n\n" + rbody
					}
					rr := "<" + id + ">"
					if refs != "" {
						rr = refs + " " + rr
					}
					write(rid, fmt.Sprintf("rev%d@example.net", rng.Intn(50)), fmt.Sprintf("Re: [PATCH%s%s] subsys%d: do thing %d", vtag, num(i), sid%40, i), id, rr, "", rbody)
				}
			}
		}
		// Noise.
		if rng.Intn(4) == 0 {
			write(fmt.Sprintf("noise%d@example.com", sid), "user@example.com", "Question about pipes", "", "", "", "Why does my read hang?\n")
		}
	}
	return buf.Bytes(), count
}

func TestGenMboxAssembles(t *testing.T) {
	data, n := genMbox(2000, 2)
	p := filepath.Join(t.TempDir(), "gen.mbox")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	msgs, errs := mail.Load(context.Background(), []string{p}, nil)
	if len(errs) != 0 || len(msgs) != n {
		t.Fatalf("%d messages, errors %v", len(msgs), errs)
	}
	ss := Assemble(msgs, Options{})
	patches, reviews, superseded := 0, 0, 0
	for _, s := range ss {
		patches += len(s.Patches)
		reviews += len(s.Review)
		if s.SupersededBy != "" {
			superseded++
		}
		if s.Incomplete != "" {
			t.Errorf("series %s incomplete: %s (%v)", s.ID, s.Incomplete, s.Notes)
		}
	}
	if patches < 800 || reviews == 0 || superseded == 0 {
		t.Errorf("%d series, %d patches, %d review diffs, %d superseded", len(ss), patches, reviews, superseded)
	}
}

// BenchmarkLoadAssemble10k parses, threads and assembles a generated mbox
// of 10,000 messages.
func BenchmarkLoadAssemble10k(b *testing.B) {
	data, n := genMbox(10000, 1)
	p := filepath.Join(b.TempDir(), "gen.mbox")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	cpu0 := cpuTime()
	b.ResetTimer()
	var series int
	for i := 0; i < b.N; i++ {
		msgs, errs := mail.Load(context.Background(), []string{p}, nil)
		if len(errs) != 0 || len(msgs) != n {
			b.Fatalf("%d messages, %d errors", len(msgs), len(errs))
		}
		series = len(Assemble(msgs, Options{}))
	}
	b.StopTimer()
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "messages/s")
	// CPU time (user+sys of the whole process) does not depend on what else
	// runs on the machine; messages per CPU-second is the load-free figure.
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "messages/cpu-s")
	}
	b.ReportMetric(float64(series), "series")
}

// cpuTime returns the user+system CPU time used by this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
