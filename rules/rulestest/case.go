package rulestest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

var update = flag.Bool("update", false, "rewrite the WANT lines of rule case files from the current output")

// Modes a case runs in.
const (
	// ModeTree applies the patch onto the case's tree and indexes it.
	ModeTree = "tree"
	// ModePatch analyses the patch alone.
	ModePatch = "patch"
	// ModeReverse applies the reverse patch (the fix) onto the case's
	// tree with the patch applied (the tree with the bug).
	ModeReverse = "reverse"
)

// TreeLinux61 is the "tree:" value naming the shared Linux 6.1 tree.
const TreeLinux61 = "linux-6.1"

// ApplyConflict is the "apply:" value of a case whose patch does not
// apply cleanly to its tree (its hunks' post-image is analysed).
const ApplyConflict = "conflict"

// Case is one case file: a txtar archive whose comment holds the header
// lines and expectations, with a "patch" file and optional files that make
// up the pre-patch tree.
//
//	A one-line description, then free text.
//	tree: linux-6.1        (optional: the shared 6.1 tree instead of the files)
//	modes: tree patch      (optional: default "tree patch", "tree" on linux-6.1)
//	apply: conflict        (optional: the patch does not apply cleanly to the tree)
//	seed: 002-watch-queue-v5.mbox 2/2   (optional: where the patch comes from)
//	WANT risk sleep-in-atomic f chain:kmalloc
//	  step f spin_lock(
//	WANT(patch) note wakeup-removed foo_write key:foo_dev.wq
//	WANT none
//	NOTE(patch) were not checked: no --tree
//	!NOTE(tree) no --tree
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
// are none. Lines indented under a WANT line say more about the finding it
// stands for (see detail.go); -update keeps them under the same WANT line.
//
// The tree mode fails when the patch does not apply cleanly, unless the
// case says "apply: conflict". The reverse mode runs the reverse patch
// on the tree with the patch applied (both must apply). "seed:" names a
// seed mbox of the repository's testdata/seeds and a subject substring:
// the diff the mail layer extracts from the first message with a diff
// whose subject holds the substring must be the case's patch. A NOTE
// line asks for a note of the pass (Pass.Notes) holding the text, a
// "!NOTE" line for none; with (mode), in that mode only.
type Case struct {
	// Name is the file name without .txtar.
	Name string
	// Path is the file's path.
	Path string
	// Tree is TreeLinux61 or "" (the case's own files).
	Tree string
	// Modes are the modes to run in.
	Modes []string
	// Apply is ApplyConflict or "" (the patch applies cleanly).
	Apply string
	// Seed is the "seed:" value: a seed mbox and a subject substring.
	Seed string
	// Patch is the diff.
	Patch string
	// Files are the pre-patch tree's files by path.
	Files map[string]string
	// Want holds the expected lines per mode ("" for every mode).
	Want map[string][]string

	wants   []*want     // the WANT lines with their detail lines
	notes   []noteCheck // the NOTE lines
	comment []string    // header lines other than WANT and details, kept by -update
	archive []byte      // the files part, kept by -update
}

// want is one WANT line and the detail lines under it.
type want struct {
	mode, line string
	details    []detail
}

// noteCheck is a NOTE line: some note of the pass holds text (none when
// neg).
type noteCheck struct {
	mode, text string
	neg        bool
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
	if err := c.parseHeader(head); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, f := range files {
		if f.name == "patch" {
			c.Patch = f.data
		} else {
			c.Files[f.name] = f.data
		}
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// parseHeader reads the header lines: WANT lines with their details,
// NOTE lines and the "key:" lines; the rest is kept as comment.
func (c *Case) parseHeader(head []byte) error {
	var lines []string
	if len(bytes.TrimSpace(head)) > 0 {
		lines = strings.Split(strings.TrimRight(string(head), "\n"), "\n")
	}
	var last *want // the WANT line detail lines go under
	lastNone := false
	for _, l := range lines {
		if l != "" && (l[0] == ' ' || l[0] == '\t') && (last != nil || lastNone) {
			if lastNone {
				return fmt.Errorf("detail line %q under WANT none", l)
			}
			d, err := parseDetail(l)
			if err != nil {
				return err
			}
			last.details = append(last.details, d)
			continue
		}
		last, lastNone = nil, false
		switch {
		case strings.HasPrefix(l, "WANT"):
			mode, rest, err := parseWant(l)
			if err != nil {
				return err
			}
			if rest == "none" {
				lastNone = true
				continue
			}
			c.Want[mode] = append(c.Want[mode], rest)
			last = &want{mode: mode, line: rest}
			c.wants = append(c.wants, last)
			continue
		case strings.HasPrefix(l, "NOTE") || strings.HasPrefix(l, "!NOTE"):
			mode, text, err := parseKeyword(strings.TrimPrefix(l, "!"), "NOTE")
			if err != nil {
				return err
			}
			c.notes = append(c.notes, noteCheck{mode: mode, text: text, neg: l[0] == '!'})
		case strings.HasPrefix(l, "tree:"):
			c.Tree = strings.TrimSpace(strings.TrimPrefix(l, "tree:"))
			if c.Tree != TreeLinux61 {
				return fmt.Errorf("unknown tree %q", c.Tree)
			}
		case strings.HasPrefix(l, "modes:"):
			c.Modes = strings.Fields(strings.TrimPrefix(l, "modes:"))
		case strings.HasPrefix(l, "apply:"):
			c.Apply = strings.TrimSpace(strings.TrimPrefix(l, "apply:"))
			if c.Apply != ApplyConflict {
				return fmt.Errorf("unknown apply: %q", c.Apply)
			}
		case strings.HasPrefix(l, "seed:"):
			c.Seed = strings.TrimSpace(strings.TrimPrefix(l, "seed:"))
		}
		c.comment = append(c.comment, l)
	}
	return nil
}

// validate checks what the header and the files say together and fills
// in the default modes.
func (c *Case) validate() error {
	if c.Patch == "" {
		return fmt.Errorf("no patch file")
	}
	if c.Tree != "" && len(c.Files) > 0 {
		return fmt.Errorf("tree %s and files: overlaying the shared tree is not supported", c.Tree)
	}
	if len(c.Modes) == 0 {
		c.Modes = []string{ModeTree, ModePatch}
		if c.Tree != "" {
			c.Modes = []string{ModeTree}
		}
	}
	for _, m := range c.Modes {
		if m != ModeTree && m != ModePatch && m != ModeReverse {
			return fmt.Errorf("unknown mode %q", m)
		}
	}
	if c.Apply != "" && contains(c.Modes, ModeReverse) {
		return fmt.Errorf("apply: %s and mode %s: the reverse mode needs a patch that applies", c.Apply, ModeReverse)
	}
	for m := range c.Want {
		if m != "" && !contains(c.Modes, m) {
			return fmt.Errorf("WANT(%s) but the case does not run in that mode", m)
		}
	}
	for _, n := range c.notes {
		if n.mode != "" && !contains(c.Modes, n.mode) {
			return fmt.Errorf("NOTE(%s) but the case does not run in that mode", n.mode)
		}
	}
	return nil
}

// parseWant splits a WANT line into its mode ("" for every mode) and the
// rest, spaces normalised.
func parseWant(l string) (mode, rest string, err error) {
	mode, rest, err = parseKeyword(l, "WANT")
	return mode, strings.Join(strings.Fields(rest), " "), err
}

// parseKeyword splits "KEY[(mode)] text" into mode and text.
func parseKeyword(l, key string) (mode, rest string, err error) {
	rest = strings.TrimPrefix(l, key)
	if strings.HasPrefix(rest, "(") {
		i := strings.Index(rest, ")")
		if i < 0 {
			return "", "", fmt.Errorf("bad %s line %q", key, l)
		}
		mode, rest = rest[1:i], rest[i+1:]
	}
	if !strings.HasPrefix(rest, " ") || strings.TrimSpace(rest) == "" {
		return "", "", fmt.Errorf("bad %s line %q", key, l)
	}
	return mode, strings.TrimSpace(rest), nil
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

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
