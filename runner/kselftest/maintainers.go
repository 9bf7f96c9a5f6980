package kselftest

import (
	"bufio"
	"bytes"
	"strings"
)

// Entry is one MAINTAINERS section: its title and F: patterns.
type Entry struct {
	// Title is the section's first line.
	Title string
	// Files are its F: patterns.
	Files []string
}

// selftestDir is where a MAINTAINERS F: line names a selftest target.
const selftestDir = "tools/testing/selftests/"

// ParseMaintainers reads the sections of a MAINTAINERS file (blank-line
// separated; the header before the first section holds no F: lines).
func ParseMaintainers(b []byte) []Entry {
	var out []Entry
	var cur *Entry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		l := sc.Text()
		if strings.TrimSpace(l) == "" {
			cur = nil
			continue
		}
		if cur == nil {
			out = append(out, Entry{Title: strings.TrimSpace(l)})
			cur = &out[len(out)-1]
			continue
		}
		if rest, ok := strings.CutPrefix(l, "F:"); ok {
			if p := strings.TrimSpace(rest); p != "" {
				cur.Files = append(cur.Files, p)
			}
		}
	}
	var kept []Entry
	for _, e := range out {
		if len(e.Files) > 0 {
			kept = append(kept, e)
		}
	}
	return kept
}

// SelftestTargets returns the targets an entry's F: lines name under
// tools/testing/selftests/ (the first path component below it, or two
// when the table knows the nested name).
func (e Entry) SelftestTargets(t *Table) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range e.Files {
		rest, ok := strings.CutPrefix(f, selftestDir)
		if !ok {
			continue
		}
		rest = strings.TrimSuffix(rest, "/")
		name := ""
		for _, tg := range t.Targets {
			if rest == tg.Name || strings.HasPrefix(rest, tg.Name+"/") {
				if len(tg.Name) > len(name) {
					name = tg.Name
				}
			}
		}
		if name == "" {
			name, _, _ = strings.Cut(rest, "/")
		}
		if name != "" && !strings.ContainsAny(name, "*?[") && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// Matches reports whether one of the entry's F: patterns, other than its
// selftest ones, matches file.
func (e Entry) Matches(file string) bool {
	for _, f := range e.Files {
		if strings.HasPrefix(f, selftestDir) {
			continue
		}
		if matchPath(f, file) {
			return true
		}
	}
	return false
}
