package sumstore

import (
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// TestSideSizes prints where the bytes of a stored summaries side file
// go, by field: AUTOSEL_SIDE_SIZES=path names the file (skipped without).
func TestSideSizes(t *testing.T) {
	sf, perFile := openDumpSide(t)
	sz := map[string]int{}
	cnt := map[string]int{}
	stepStr := map[string]int{}
	chainLen := map[int]int{}
	enc := func(s *summary.Summary) int { return len(summary.Append(nil, s)) }
	countSteps := func(field string, ss []report.Step) {
		cnt[field+".steps"] += len(ss)
		chainLen[len(ss)]++
		for _, s := range ss {
			stepStr["func"] += len(s.Func)
			stepStr["file"] += len(s.File)
			stepStr["what"] += len(s.What)
		}
	}
	effs := func(field string, es []summary.Effect) {
		for _, e := range es {
			cnt[field]++
			countSteps(field, e.Steps)
		}
	}
	chains := map[string]int{}
	chainBytes := 0
	for i := range perFile {
		for j := 0; j < perFile[i]; j++ {
			b := sf.Get(index.MakeRef(i, j))
			if b == nil {
				continue
			}
			rec, ok := decodeRecordFull(b)
			if !ok {
				t.Fatalf("bad record %d/%d", i, j)
			}
			cnt["records"]++
			sz["all"] += len(b)
			sz["header"] += len(b) - len(rec.rest)
			if rec.rest == nil {
				continue
			}
			s, ok := summary.Decode(rec.rest)
			if !ok {
				t.Fatalf("bad summary %d/%d", i, j)
			}
			cnt["summaries"]++
			sz["summary"] += len(rec.rest)
			if s.Reach != nil {
				sz["reach"] += enc(&summary.Summary{Reach: s.Reach}) - 1
				sz["reach.steps"] += enc(&summary.Summary{Reach: &summary.Reach{Steps: s.Reach.Steps}}) - 1
				countSteps("reach", s.Reach.Steps)
				effs("reach.drops", s.Reach.Drops)
				effs("reach.retakes", s.Reach.Retakes)
				for _, st := range s.Reach.Steps {
					k := st.Func + "\x00" + st.File + "\x00" + fmt.Sprint(st.Line) + st.What
					chains[k]++
				}
			}
			sz["acquires"] += enc(&summary.Summary{Acquires: s.Acquires})
			sz["condacquires"] += enc(&summary.Summary{CondAcquires: s.CondAcquires})
			sz["drops"] += enc(&summary.Summary{Drops: s.Drops})
			sz["argreaches"] += enc(&summary.Summary{ArgReaches: s.ArgReaches})
			effs("acquires", s.Acquires)
			effs("condacquires", s.CondAcquires)
			effs("drops", s.Drops)
			for _, a := range s.ArgReaches {
				cnt["argreaches"]++
				countSteps("argreach", a.Steps)
				effs("argreach.drops", a.Drops)
				effs("argreach.retakes", a.Retakes)
			}
			for _, e := range append(append(append([]summary.Effect{}, s.Acquires...), s.CondAcquires...), s.Drops...) {
				for _, st := range e.Steps {
					chainBytes += len(st.Func) + len(st.File) + len(st.What) + 4
				}
			}
		}
	}
	print := func(m map[string]int) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("%-24s %d", k, m[k])
		}
	}
	t.Log("bytes:")
	print(sz)
	t.Log("counts:")
	print(cnt)
	t.Log("step string bytes:")
	print(stepStr)
	t.Logf("distinct reach steps %d, effect step bytes %d", len(chains), chainBytes)
	lens := make([]int, 0, len(chainLen))
	for l := range chainLen {
		lens = append(lens, l)
	}
	sort.Ints(lens)
	for _, l := range lens {
		t.Logf("chain len %d: %d", l, chainLen[l])
	}
}

// TestSideDrops prints the commonest drops of a side file
// (AUTOSEL_SIDE_SIZES) by kind, key and last step.
func TestSideDrops(t *testing.T) {
	sf, perFile := openDumpSide(t)
	by := map[string]int{}
	bytesBy := map[string]int{}
	perSum := map[int]int{}
	shown := 0
	for i, n := range perFile {
		for j := 0; j < n; j++ {
			b := sf.Get(index.MakeRef(i, j))
			rec, ok := decodeRecord(b)
			if !ok || rec.rest == nil {
				continue
			}
			s, _ := summary.Decode(rec.rest)
			perSum[len(s.Drops)]++
			for _, d := range s.Drops {
				last := ""
				if len(d.Steps) > 0 {
					last = d.Steps[len(d.Steps)-1].What
				}
				k := fmt.Sprintf("%s|%s|%s|soft=%v", d.Kind, d.Key, last, d.Soft)
				by[k]++
				bytesBy[k] += len(summary.Append(nil, &summary.Summary{Drops: []summary.Effect{d}}))
				if len(d.Steps) > 60 && shown < 2 {
					shown++
					for _, st := range d.Steps {
						t.Logf("  %s %s:%d %s", st.Func, st.File, st.Line, st.What)
					}
				}
			}
		}
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { return bytesBy[keys[a]] > bytesBy[keys[b]] })
	for _, k := range keys[:min(30, len(keys))] {
		t.Logf("%10d %12d %s", by[k], bytesBy[k], k)
	}
	for n, c := range perSum {
		t.Logf("drops per summary %d: %d", n, c)
	}
}

// openDumpSide opens the side file AUTOSEL_SIDE_SIZES names (skipping the
// test without) and returns it with the number of records of each file.
func openDumpSide(t *testing.T) (*index.SideFile, []int) {
	path := os.Getenv("AUTOSEL_SIDE_SIZES")
	if path == "" {
		t.Skip("AUTOSEL_SIDE_SIZES not set")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	hdr := make([]byte, 1<<22)
	_, err = f.Read(hdr)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	off := len("autosel-bot side\x01")
	gl := int(binary.LittleEndian.Uint32(hdr[off:]))
	gen := string(hdr[off+4 : off+4+gl])
	off += 4 + gl
	nFiles := int(binary.LittleEndian.Uint32(hdr[off:]))
	off += 8
	perFile := make([]int, nFiles)
	for i := range perFile {
		perFile[i] = int(binary.LittleEndian.Uint32(hdr[off+4*i+4:]) - binary.LittleEndian.Uint32(hdr[off+4*i:]))
	}
	sf, err := index.OpenSide(path, gen)
	if err != nil {
		t.Fatal(err)
	}
	return sf, perFile
}
