package daemon

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/mail"
)

// seedCopies returns n raw messages: copies of the seed threads, one
// thread after the other, each copy with Message-IDs of its own (every
// Message-ID, In-Reply-To and References entry naming a seed message or a
// message the seeds answer gets the copy's prefix), so that every copy
// assembles into series of its own. The last copy is cut at n.
func seedCopies(t testing.TB, n int) [][]byte {
	t.Helper()
	seeds := seedMessages(t)
	// Every identifier the seed headers use, longest first so that one
	// identifier inside another is not rewritten twice.
	idset := map[string]bool{}
	for _, raw := range seeds {
		m, err := mail.Parse(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("seed: %v", err)
		}
		for _, id := range append([]string{m.MessageID, m.InReplyTo}, m.References...) {
			if id != "" {
				idset[id] = true
			}
		}
	}
	ids := make([]string, 0, len(idset))
	for id := range idset {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if len(ids[i]) != len(ids[j]) {
			return len(ids[i]) > len(ids[j])
		}
		return ids[i] < ids[j]
	})
	out := make([][]byte, 0, n)
	for c := 0; len(out) < n; c++ {
		pairs := make([]string, 0, 2*len(ids))
		for _, id := range ids {
			pairs = append(pairs, "<"+id+">", fmt.Sprintf("<copy%d.%s>", c, id))
		}
		rw := strings.NewReplacer(pairs...)
		for _, raw := range seeds {
			if len(out) == n {
				break
			}
			head, body := splitHeader(raw)
			out = append(out, append([]byte(rw.Replace(string(head))), body...))
		}
	}
	return out
}

// splitHeader splits a raw message after its header block (the empty
// line stays with the body).
func splitHeader(raw []byte) (head, body []byte) {
	for _, sep := range []string{"\r\n\r\n", "\n\n"} {
		if i := bytes.Index(raw, []byte(sep)); i >= 0 {
			return raw[:i], raw[i:]
		}
	}
	return raw, nil
}

// writeMboxrd writes raw messages as an mboxrd file (a "From " separator
// per message, "From " lines in the text quoted with '>') and returns its
// path.
func writeMboxrd(t testing.TB, path string, raws [][]byte) string {
	t.Helper()
	var b bytes.Buffer
	for _, raw := range raws {
		b.WriteString("From autosel-test@example.org Mon Jan  1 00:00:00 2024\n")
		for _, line := range bytes.SplitAfter(raw, []byte("\n")) {
			i := 0
			for i < len(line) && line[i] == '>' {
				i++
			}
			if bytes.HasPrefix(line[i:], []byte("From ")) {
				b.WriteByte('>')
			}
			b.Write(line)
		}
		if !bytes.HasSuffix(raw, []byte("\n")) {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSeedCopies: the copies read back from the mbox byte for byte, and
// copy c of the seeds assembles like the seeds, under its own IDs.
func TestSeedCopies(t *testing.T) {
	seeds := seedMessages(t)
	n := 3*len(seeds) + 5
	raws := seedCopies(t, n)
	if len(raws) != n {
		t.Fatalf("%d messages, want %d", len(raws), n)
	}
	path := writeMboxrd(t, filepath.Join(t.TempDir(), "copies.mbox"), raws)
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	i := 0
	err = mail.ReadMbox(fh, func(raw []byte, line int) error {
		if i >= len(raws) || !bytes.Equal(raw, raws[i]) {
			return fmt.Errorf("message %d (line %d) does not read back", i, line)
		}
		i++
		return nil
	})
	if err != nil || i != n {
		t.Fatalf("read back %d of %d: %v", i, n, err)
	}
	want := expectedSeries(t, seeds)
	ids := map[string]bool{}
	for c := 0; c < 3; c++ {
		keys := expectedSeries(t, raws[c*len(seeds):(c+1)*len(seeds)])
		if len(keys) != len(want) {
			t.Fatalf("copy %d: %d series, want %d", c, len(keys), len(want))
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !strings.HasPrefix(k, fmt.Sprintf("copy%d.", c)) {
				t.Errorf("copy %d: series %s keeps a seed Message-ID", c, k)
			}
			if ids[k] {
				t.Errorf("series %s in two copies", k)
			}
			ids[k] = true
		}
	}
	if got := len(expectedSeries(t, raws[:3*len(seeds)])); got != 3*len(want) {
		t.Errorf("three copies assemble into %d series, want %d: copies do not stay apart", got, 3*len(want))
	}
}
