package rulestest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
)

var update = flag.Bool("update", false, "rewrite the WANT lines of rule case files from the current output")

// Modes a case runs in.
const (
	// ModeTree applies the patch onto the case's tree and indexes it.
	ModeTree = "tree"
	// ModePatch analyses the patch alone.
	ModePatch = "patch"
)

// TreeLinux61 is the "tree:" value naming the shared Linux 6.1 tree.
const TreeLinux61 = "linux-6.1"

// Case is one case file: a txtar archive whose comment holds the header
// lines and expectations, with a "patch" file and optional files that make
// up the pre-patch tree.
//
//	A one-line description, then free text.
//	tree: linux-6.1        (optional: the shared 6.1 tree instead of the files)
//	modes: tree patch      (optional: default "tree patch", "tree" on linux-6.1)
//	WANT risk sleep-in-atomic f chain:kmalloc
//	WANT(patch) note wakeup-removed foo_write key:foo_dev.wq
//	WANT none
//	-- patch --
//	diff --git a/a.c b/a.c
//	...
//	-- a.c --
//	(the file before the patch)
//
// A WANT line is "severity check func [chain:primitive] [key:key]" (check
// is the finding's category, else its rule; primitive the last chain
// step's callee): it holds in every mode, WANT(mode) in one. The lines
// must match the findings exactly, as a multiset; "WANT none" says there
// are none.
type Case struct {
	// Name is the file name without .txtar.
	Name string
	// Path is the file's path.
	Path string
	// Tree is TreeLinux61 or "" (the case's own files).
	Tree string
	// Modes are the modes to run in.
	Modes []string
	// Patch is the diff.
	Patch string
	// Files are the pre-patch tree's files by path.
	Files map[string]string
	// Want holds the expected lines per mode ("" for every mode).
	Want map[string][]string

	comment []string // header lines other than WANT, kept by -update
	archive []byte   // the files part, kept by -update
}

// ParseCase reads one case file.
func ParseCase(path string) (*Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &Case{Name: strings.TrimSuffix(filepath.Base(path), ".txtar"), Path: path, Files: map[string]string{}, Want: map[string][]string{}}
	head, files := splitArchive(b)
	c.archive = b[len(head):]
	var headLines []string
	if len(bytes.TrimSpace(head)) > 0 {
		headLines = strings.Split(strings.TrimRight(string(head), "\n"), "\n")
	}
	for _, l := range headLines {
		switch {
		case strings.HasPrefix(l, "WANT"):
			mode, rest, err := parseWant(l)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if rest != "none" {
				c.Want[mode] = append(c.Want[mode], rest)
			}
			continue
		case strings.HasPrefix(l, "tree:"):
			c.Tree = strings.TrimSpace(strings.TrimPrefix(l, "tree:"))
			if c.Tree != TreeLinux61 {
				return nil, fmt.Errorf("%s: unknown tree %q", path, c.Tree)
			}
		case strings.HasPrefix(l, "modes:"):
			c.Modes = strings.Fields(strings.TrimPrefix(l, "modes:"))
		}
		c.comment = append(c.comment, l)
	}
	for _, f := range files {
		if f.name == "patch" {
			c.Patch = f.data
		} else {
			c.Files[f.name] = f.data
		}
	}
	if c.Patch == "" {
		return nil, fmt.Errorf("%s: no patch file", path)
	}
	if c.Tree != "" && len(c.Files) > 0 {
		return nil, fmt.Errorf("%s: tree %s and files: overlaying the shared tree is not supported", path, c.Tree)
	}
	if len(c.Modes) == 0 {
		c.Modes = []string{ModeTree, ModePatch}
		if c.Tree != "" {
			c.Modes = []string{ModeTree}
		}
	}
	for _, m := range c.Modes {
		if m != ModeTree && m != ModePatch {
			return nil, fmt.Errorf("%s: unknown mode %q", path, m)
		}
	}
	for m := range c.Want {
		if m != "" && !contains(c.Modes, m) {
			return nil, fmt.Errorf("%s: WANT(%s) but the case does not run in that mode", path, m)
		}
	}
	return c, nil
}

func parseWant(l string) (mode, rest string, err error) {
	rest = strings.TrimPrefix(l, "WANT")
	if strings.HasPrefix(rest, "(") {
		i := strings.Index(rest, ")")
		if i < 0 {
			return "", "", fmt.Errorf("bad WANT line %q", l)
		}
		mode, rest = rest[1:i], rest[i+1:]
	}
	if !strings.HasPrefix(rest, " ") {
		return "", "", fmt.Errorf("bad WANT line %q", l)
	}
	return mode, strings.Join(strings.Fields(rest), " "), nil
}

type archiveFile struct{ name, data string }

// splitArchive splits a txtar archive into its comment and files.
func splitArchive(b []byte) (head []byte, files []archiveFile) {
	var cur *archiveFile
	off := 0
	for off < len(b) {
		end := bytes.IndexByte(b[off:], '\n')
		line := b[off:]
		next := len(b)
		if end >= 0 {
			line, next = b[off:off+end], off+end+1
		}
		if name, ok := fileMarker(string(line)); ok {
			if cur == nil {
				head = b[:off]
			} else {
				files = append(files, *cur)
			}
			cur = &archiveFile{name: name}
		} else if cur != nil {
			cur.data += string(b[off:next])
		}
		off = next
	}
	if cur == nil {
		return b, nil
	}
	return head, append(files, *cur)
}

func fileMarker(l string) (string, bool) {
	if !strings.HasPrefix(l, "-- ") || !strings.HasSuffix(l, " --") || len(l) < 7 {
		return "", false
	}
	return strings.TrimSpace(l[3 : len(l)-3]), true
}

// WantLine renders a finding as a WANT line's text.
func WantLine(f report.Finding) string {
	s := fmt.Sprintf("%s %s %s", f.Severity, f.Check(), f.Func)
	if n := len(f.Chain); n > 0 {
		prim := strings.TrimPrefix(f.Chain[n-1].What, "calls ")
		if i := strings.Index(prim, "("); i > 0 {
			prim = prim[:i]
		}
		if i := strings.Index(prim, ":"); i > 0 {
			prim = prim[:i]
		}
		if prim != "" && !strings.Contains(prim, " ") {
			s += " chain:" + prim
		}
	}
	if f.Key != "" {
		s += " key:" + strings.ReplaceAll(f.Key, " ", "")
	}
	return s
}

// RunCases runs every case file *.txtar in dir with the rule newRule
// builds, as subtests; with -update it rewrites their WANT lines instead
// of comparing.
func RunCases(t *testing.T, dir string, newRule rules.Constructor) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no case files in %s", dir)
	}
	rule, err := newRule(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		c, err := ParseCase(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(c.Name, func(t *testing.T) {
			got := map[string][]string{}
			for _, m := range c.Modes {
				got[m] = c.run(t, rule, m)
			}
			if *update {
				if err := c.rewrite(got); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, m := range c.Modes {
				want := append(append([]string(nil), c.Want[""]...), c.Want[m]...)
				sort.Strings(want)
				if strings.Join(got[m], "\n") != strings.Join(want, "\n") {
					t.Errorf("%s mode:\ngot:\n  %s\nwant:\n  %s\n(go test -update rewrites the WANT lines)", m,
						strings.Join(got[m], "\n  "), strings.Join(want, "\n  "))
				}
			}
		})
	}
}

// run returns the sorted WANT lines of the case's findings in mode.
func (c *Case) run(t *testing.T, rule *rules.Rule, mode string) []string {
	t.Helper()
	var fs []report.Finding
	switch {
	case mode == ModePatch:
		fs, _ = Run(t, rule, c.Patch, "", nil)
	case c.Tree == TreeLinux61:
		dir, ix := Kernel(t)
		fs, _ = Run(t, rule, c.Patch, dir, ix)
	default:
		dir := t.TempDir()
		for p, s := range c.Files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ix, err := index.Open(context.Background(), dir, index.Options{CacheDir: "-"})
		if err != nil {
			t.Fatal(err)
		}
		p := Pass(t, c.Patch, dir, ix)
		if p.Change.ApplyError != "" {
			t.Fatalf("patch does not apply to the case's files: %s", p.Change.ApplyError)
		}
		fs = RunPass(t, rule, p)
		if rule.Prepare != nil {
			// What the family prepares from the whole tree (stored
			// summaries) must not change a finding.
			if err := rule.Prepare(context.Background(), ix, nil); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			if want, got := fullLines(t, fs), fullLines(t, RunPass(t, rule, Pass(t, c.Patch, dir, ix))); !reflect.DeepEqual(want, got) {
				t.Errorf("findings change once the tree is prepared:\nwithout:\n%s\nwith:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
		}
	}
	return wantLines(fs)
}

// fullLines renders every field of fs, chains included, sorted.
func fullLines(t *testing.T, fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// wantLines returns the sorted WANT lines of fs.
func wantLines(fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, WantLine(f))
	}
	sort.Strings(out)
	return out
}

// rewrite replaces the case file's WANT lines with got: lines found in
// every mode as WANT, the others as WANT(mode).
func (c *Case) rewrite(got map[string][]string) error {
	count := func(l []string) map[string]int {
		m := map[string]int{}
		for _, s := range l {
			m[s]++
		}
		return m
	}
	common := count(got[c.Modes[0]])
	for _, m := range c.Modes[1:] {
		cm := count(got[m])
		for s, n := range common {
			if cm[s] < n {
				common[s] = cm[s]
			}
		}
	}
	var lines []string
	for _, s := range got[c.Modes[0]] {
		if common[s] > 0 {
			common[s]--
			lines = append(lines, "WANT "+s)
		}
	}
	all := count(nil)
	for _, l := range lines {
		all[strings.TrimPrefix(l, "WANT ")]++
	}
	for _, m := range c.Modes {
		left := map[string]int{}
		for k, v := range all {
			left[k] = v
		}
		for _, s := range got[m] {
			if left[s] > 0 {
				left[s]--
				continue
			}
			lines = append(lines, "WANT("+m+") "+s)
		}
	}
	if len(lines) == 0 {
		lines = []string{"WANT none"}
	}
	var b bytes.Buffer
	for _, l := range c.comment {
		b.WriteString(l + "\n")
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.Write(c.archive)
	return os.WriteFile(c.Path, b.Bytes(), 0o644)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
