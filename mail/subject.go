package mail

import (
	"mime"
	"strconv"
	"strings"

	"github.com/emersion/go-message/charset"
)

// subjectDecoder decodes RFC 2047 encoded words in subjects, with every
// charset go-message knows.
var subjectDecoder = &mime.WordDecoder{CharsetReader: charset.Reader}

// replyPrefixes are the reply/forward markers stripped from subjects
// (compared case-insensitively, before the colon). "aw", "sv", "antw" and
// "odp" are German, Nordic, Dutch and Polish forms of "Re".
var replyPrefixes = []string{"re", "fwd", "fw", "aw", "sv", "antw", "odp", "wg"}

// ParseSubject parses a patch subject: reply prefixes (Re:, RE:, Fwd:, Fw:,
// AW:, any number of them), bracket groups such as "[RFC PATCH net-next v2
// 3/7]", "[PATCHv3]", "[PATCH AUTOSEL 5.5 542/542]" or "[PATCH 5.10 12/40]",
// and the remaining title. Folded and RFC 2047 encoded subjects are
// unfolded and decoded first.
func ParseSubject(s string) Subject {
	raw := unfoldSubject(s)
	if strings.Contains(raw, "=?") {
		if dec, err := subjectDecoder.DecodeHeader(raw); err == nil {
			raw = unfoldSubject(dec)
		}
	}
	sub := Subject{Raw: raw, Version: 1}
	rest := raw
	for {
		rest = strings.TrimLeft(rest, " \t")
		if n := replyPrefixLen(rest); n > 0 {
			sub.Reply = true
			rest = rest[n:]
			continue
		}
		if strings.HasPrefix(rest, "[") {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				break
			}
			parseTagGroup(rest[1:end], &sub)
			rest = rest[end+1:]
			continue
		}
		break
	}
	sub.Title = strings.TrimSpace(rest)
	// David Howells' stgit style puts the version last: "... [ver #3]".
	if strings.HasSuffix(sub.Title, "]") {
		if i := strings.LastIndexByte(sub.Title, '['); i >= 0 {
			tag := strings.ToLower(strings.TrimSpace(sub.Title[i+1 : len(sub.Title)-1]))
			v := 0
			if n, ok := strings.CutPrefix(tag, "ver #"); ok {
				v, _ = strconv.Atoi(n)
			} else {
				v = versionSuffix(tag)
			}
			if v > 0 && v <= 1000 {
				sub.Version = v
				sub.Title = strings.TrimSpace(sub.Title[:i])
			}
		}
	}
	return sub
}

// unfoldSubject joins folded header lines and collapses runs of white space.
func unfoldSubject(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") && !strings.Contains(s, "  ") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(s), " ")
}

// replyPrefixLen returns the length of a leading "Re:"-style prefix
// (including forms like "Re[2]:"), or 0.
func replyPrefixLen(s string) int {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || colon > 8 {
		return 0
	}
	word := s[:colon]
	if i := strings.IndexByte(word, '['); i > 0 && strings.HasSuffix(word, "]") {
		if _, err := strconv.Atoi(word[i+1 : len(word)-1]); err != nil {
			return 0
		}
		word = word[:i]
	}
	for _, p := range replyPrefixes {
		if strings.EqualFold(word, p) {
			return colon + 1
		}
	}
	return 0
}

// parseTagGroup interprets the inside of one bracket group.
func parseTagGroup(g string, sub *Subject) {
	toks := strings.Fields(g)
	// A group is a patch tag group when it names PATCH (in any spelling).
	isPatch := false
	for _, t := range toks {
		if isPatchWord(t) {
			isPatch = true
			break
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		lt := strings.ToLower(t)
		switch {
		case isPatchWord(t):
			sub.Patch = true
			if v := versionSuffix(lt[len("patch"):]); v > 0 {
				sub.Version = v
			}
		case lt == "rfc":
			sub.RFC = true
		case lt == "resend":
			sub.Resend = true
		case lt == "autosel":
			sub.Patch = true
			if i+1 < len(toks) && isKernelVersion(toks[i+1]) {
				sub.Autosel = toks[i+1]
				i++
			}
		case versionSuffix(lt) > 0 && (lt[0] == 'v'):
			sub.Version = versionSuffix(lt)
		case isPartNumber(t):
			n, total := parsePart(t)
			sub.Number, sub.Total = n, total
		case isPatch && isKernelVersion(t):
			// "[PATCH 5.10 12/40]": a stable review patch for that tree.
			sub.Stable = t
		case isPatch && sub.Tree == "" && isTreeWord(t):
			sub.Tree = t
		}
	}
}

// isPatchWord reports whether t is PATCH, PATCHv3, PATCH-v3 and the like.
func isPatchWord(t string) bool {
	lt := strings.ToLower(t)
	if !strings.HasPrefix(lt, "patch") {
		return false
	}
	rest := lt[len("patch"):]
	return rest == "" || versionSuffix(rest) > 0 || rest == "es"
}

// versionSuffix parses "v3", "-v3", "V3" (returns 3) or returns 0.
func versionSuffix(s string) int {
	s = strings.TrimPrefix(s, "-")
	if len(s) < 2 || (s[0] != 'v' && s[0] != 'V') {
		return 0
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil || n <= 0 || n > 1000 {
		return 0
	}
	return n
}

// isPartNumber reports whether t looks like "3/7" or "03/10".
func isPartNumber(t string) bool {
	slash := strings.IndexByte(t, '/')
	if slash <= 0 || slash == len(t)-1 {
		return false
	}
	return allDigits(t[:slash]) && allDigits(t[slash+1:])
}

func parsePart(t string) (int, int) {
	slash := strings.IndexByte(t, '/')
	n, err1 := strconv.Atoi(t[:slash])
	total, err2 := strconv.Atoi(t[slash+1:])
	if err1 != nil || err2 != nil || n < 0 || total < 0 || n > 100000 || total > 100000 {
		return 0, 0
	}
	return n, total
}

// isKernelVersion reports whether t looks like "5.5", "5.10", "4.19.y" or "6.1.192".
func isKernelVersion(t string) bool {
	parts := strings.Split(strings.TrimPrefix(t, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for i, p := range parts {
		if i == 2 && (p == "y" || p == "x") {
			continue
		}
		if !allDigits(p) {
			return false
		}
	}
	return true
}

// isTreeWord reports whether t looks like a tree keyword ("net-next", "bpf",
// "mm-hotfixes"), not free text.
func isTreeWord(t string) bool {
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
