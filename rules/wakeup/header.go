package wakeup

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/diffcheck"
)

// The header of a function as a patch side shows it: what the body parser
// needs to read the side as one definition.

// typedHeader gives a side text that starts at the function's name (its
// return type on a line the side does not hold: "static struct
// rw_semaphore __sched *" above "rwsem_down_write_slowpath(...)") a
// placeholder return type on that line, so that the body parser reads a
// definition there and not a loop macro. Line numbers are unchanged.
func typedHeader(text, name string) string {
	i := 0
	for i < len(text) && (text[i] == '\n' || text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i > 0 && text[i-1] != '\n' || !strings.HasPrefix(text[i:], name) {
		return text
	}
	rest := strings.TrimLeft(text[i+len(name):], " \t")
	if !strings.HasPrefix(rest, "(") {
		return text
	}
	return text[:i] + "int " + text[i:]
}

// dropDanglingHeader blanks a function's definition header in partial
// text when the hunks show it without its opening brace (the body starts
// in a later hunk): scanned as a statement it would swallow the first
// body lines shown. Line numbering is kept.
func dropDanglingHeader(text, name string, partial bool) string {
	if !partial {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if diffcheck.FuncName(l) != name || strings.Contains(l, "{") {
			continue
		}
		next := ""
		for _, n := range lines[i+1:] {
			if strings.TrimSpace(n) != "" {
				next = strings.TrimSpace(n)
				break
			}
		}
		if strings.HasPrefix(next, "{") {
			return text
		}
		lines[i] = ""
		return strings.Join(lines, "\n")
	}
	return text
}

// wholeNew returns the post-patch function nw shows part of (the hunks
// start inside it) as the tree has it after the patch, with nw's changed
// lines; nw itself when it is whole or the tree is not at hand.
func (r *checker) wholeNew(nw *wfunc) *wfunc {
	if !nw.Partial || r.pass.Index == nil || r.tree == nil {
		return nw
	}
	defs := cscan.PickDefs(r.pass.Index.Funcs(nw.Name), nw.File)
	if len(defs) == 0 {
		return nw
	}
	full := r.pass.Index.Full(defs[0])
	if full == nil || full.Body == nil {
		return nw
	}
	tv := r.tree.view(defs[0])
	for l, t := range nw.lines {
		if tv.lines[l] != t {
			return nw // the tree is not the post-patch text
		}
	}
	return &wfunc{File: nw.File, Name: nw.Name, Side: '+', F: full, Sites: tv.Sites, vt: tv.vt, lines: tv.lines, chg: nw.chg}
}
