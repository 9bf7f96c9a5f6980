// Package lore fetches mail threads from a public-inbox server such as
// lore.kernel.org, the way `b4 mbox` does: a Message-ID (or a link to a
// message) names the thread, and the server's t.mbox.gz of that thread is
// downloaded and decompressed. ref.go recognises thread references,
// client.go fetches them.
package lore

import (
	"net/url"
	"strings"
)

// Ref names one thread on a public-inbox server.
type Ref struct {
	// Input is the argument as given (a Message-ID or a URL).
	Input string
	// MessageID is the Message-ID of a message of the thread, without
	// angle brackets.
	MessageID string
	// Base is the inbox URL the message lives under, ending in "/"
	// ("https://lore.kernel.org/lkml/"), when Input was a URL; empty for
	// a bare Message-ID (the client's default inbox is used).
	Base string
}

// ParseRef reports whether arg names a thread: an http(s) URL of a message
// on a public-inbox server (".../INBOX/MESSAGE-ID/", with or without a
// trailing "T/", "t.mbox.gz", "#..." and so on; "/r/MESSAGE-ID" too), or
// a Message-ID ("<id@host>" or "id@host": no white space, one '@', no
// leading '-'). Callers check first that arg is not an existing file.
func ParseRef(arg string) (Ref, bool) {
	s := strings.TrimSpace(arg)
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		return parseURL(arg, s)
	}
	s = strings.TrimPrefix(s, "id:") // notmuch-style
	s = strings.TrimPrefix(strings.TrimSuffix(s, ">"), "<")
	if !validID(s) {
		return Ref{}, false
	}
	return Ref{Input: arg, MessageID: s}, true
}

// validID reports whether s can be a Message-ID (bare, no brackets).
func validID(s string) bool {
	if s == "" || len(s) > 998 || strings.HasPrefix(s, "-") || strings.Count(s, "@") != 1 {
		return false
	}
	at := strings.IndexByte(s, '@')
	if at == 0 || at == len(s)-1 {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || r == '<' || r == '>' || r == '"' || r == '\\' {
			return false
		}
	}
	return true
}

// trailing path elements of a message URL that are not part of the ID.
var urlTails = map[string]bool{
	"": true, "T": true, "t": true, "raw": true, "t.mbox.gz": true, "t.atom": true,
	"#r": true, "#R": true, "#u": true, "#t": true, "T#u": true,
}

// parseURL finds the Message-ID in a message URL: the last path element
// that contains '@' (after unescaping), with the inbox being everything
// before it.
func parseURL(arg, s string) (Ref, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return Ref{}, false
	}
	u.Fragment, u.RawQuery = "", ""
	elems := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	for i := len(elems) - 1; i >= 0; i-- {
		if urlTails[elems[i]] {
			continue
		}
		id, err := url.PathUnescape(elems[i])
		if err != nil || !validID(id) {
			return Ref{}, false
		}
		inbox := elems[:i]
		if len(inbox) > 0 && inbox[len(inbox)-1] == "r" {
			// lore's /r/ redirector: the thread is in "all".
			inbox = append(inbox[:len(inbox)-1:len(inbox)-1], "all")
		}
		base := u.Scheme + "://" + u.Host + "/"
		if len(inbox) > 0 {
			base += strings.Join(inbox, "/") + "/"
		}
		return Ref{Input: arg, MessageID: id, Base: base}, true
	}
	return Ref{}, false
}
