package mail

import (
	"regexp"
	"strings"
)

// knownTrailers maps lower-cased trailer keys to their canonical spelling.
// Any other "Xxx-by:" key is accepted too.
var knownTrailers = map[string]string{
	"signed-off-by":   "Signed-off-by",
	"fixes":           "Fixes",
	"cc":              "Cc",
	"reviewed-by":     "Reviewed-by",
	"tested-by":       "Tested-by",
	"reported-by":     "Reported-by",
	"acked-by":        "Acked-by",
	"suggested-by":    "Suggested-by",
	"co-developed-by": "Co-developed-by",
	"link":            "Link",
	"closes":          "Closes",
	"buglink":         "BugLink",
	"bug":             "Bug",
	"debugged-by":     "Debugged-by",
	"requested-by":    "Requested-by",
	"noticed-by":      "Noticed-by",
	"cc-stable":       "Cc-stable",
}

// splitTrailer splits a "Key: value" line: the key is a letter followed by
// up to 40 letters, digits or dashes; the value, trimmed, is not empty.
func splitTrailer(line string) (key, value string, ok bool) {
	colon := strings.IndexByte(line, ':')
	if colon < 1 || colon > 41 {
		return "", "", false
	}
	key = line[:colon]
	for i := 0; i < len(key); i++ {
		c := key[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '-')) {
			return "", "", false
		}
	}
	value = strings.Trim(line[colon+1:], " \t\r")
	return key, value, value != ""
}

// parseTrailers returns the trailer lines of a commit message in order.
// Quoted lines ('>') are not trailers.
func parseTrailers(commitMsg string) []Trailer {
	var out []Trailer
	for _, line := range strings.Split(commitMsg, "\n") {
		if line == "" || line[0] == '>' || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		rawKey, value, ok := splitTrailer(line)
		if !ok {
			continue
		}
		lk := strings.ToLower(rawKey)
		key, ok := knownTrailers[lk]
		if !ok {
			if !strings.HasSuffix(lk, "-by") {
				continue
			}
			key = canonicalKey(rawKey)
		}
		t := Trailer{Key: key, Value: value}
		if key == "Cc" {
			if i := commentIndex(t.Value); i >= 0 {
				t.Comment = strings.TrimSpace(t.Value[i+1:])
				t.Value = strings.TrimSpace(t.Value[:i])
			}
		}
		out = append(out, t)
	}
	return out
}

// commentIndex finds the '#' that starts a trailer comment ("... # 5.4+").
func commentIndex(v string) int {
	for i := 0; i < len(v); i++ {
		if v[i] == '#' && (i == 0 || v[i-1] == ' ' || v[i-1] == '\t' || v[i-1] == '>') {
			return i
		}
	}
	return -1
}

// canonicalKey turns "reviewed-BY" into "Reviewed-by".
func canonicalKey(k string) string {
	k = strings.ToLower(k)
	return strings.ToUpper(k[:1]) + k[1:]
}

// upstreamRe matches the upstream commit lines stable backports carry.
var upstreamRe = regexp.MustCompile(`(?mi)^[ \t]*(?:\[[ \t]*upstream commit[ \t]+([0-9a-f]{7,40})[ \t]*\]|commit[ \t]+([0-9a-f]{7,40})[ \t]+upstream\.?[ \t]*$)`)

// parseUpstream returns the sha of an "[ Upstream commit <sha> ]" or
// "commit <sha> upstream." line, or "".
func parseUpstream(commitMsg string) string {
	m := upstreamRe.FindStringSubmatch(commitMsg)
	if m == nil {
		return ""
	}
	if m[1] != "" {
		return strings.ToLower(m[1])
	}
	return strings.ToLower(m[2])
}

// StableTag is one "Cc: stable@vger.kernel.org" trailer with its annotation.
type StableTag struct {
	// Addr is the stable address, e.g. "stable@vger.kernel.org".
	Addr string `json:"addr"`
	// Since is the first stable series the patch is meant for ("5.4"), or
	// "" for all trees (an unannotated tag).
	Since string `json:"since,omitempty"`
	// Plus is set when the patch is meant for Since and every newer tree:
	// "# 5.4+", "# v5.4.x", "# 5.4", "# 4.19.x-" and unannotated tags.
	Plus bool `json:"plus"`
	// Only is set when the annotation limits the patch to the Since series
	// ("# 5.4 only", "# 5.4.x only").
	Only bool `json:"only,omitempty"`
	// Until is the last stable series of a range annotation such as
	// "# 4.19.x-5.4.x", or "".
	Until string `json:"until,omitempty"`
	// Raw is the annotation as written (text after '#'), possibly empty.
	Raw string `json:"raw,omitempty"`
}

// stableVersionRe finds the stable version at the start of an annotation:
// "5.4+", "v5.4.x", "5.4", "4.19.x-", "4.19.x-5.4.x", "5.10.y", "3.3.x: prereq".
var stableVersionRe = regexp.MustCompile(`^(?:v|linux-)?(\d+\.\d+)(?:\.(?:x|y|\d+))?(\+|-(?:v?(\d+\.\d+)(?:\.(?:x|y|\d+))?)?)?`)

// StableTags returns the Cc: stable trailers of m with their annotations.
func StableTags(m *Message) []StableTag {
	var tags []StableTag
	for _, t := range m.Trailers {
		if t.Key != "Cc" {
			continue
		}
		addr := extractAddr(t.Value)
		if !isStableAddr(addr) {
			continue
		}
		tag := StableTag{Addr: addr, Raw: t.Comment, Plus: true}
		ann := strings.TrimSpace(t.Comment)
		if mm := stableVersionRe.FindStringSubmatch(ann); mm != nil {
			tag.Since = mm[1]
			if mm[3] != "" {
				tag.Until = mm[3]
			}
			rest := strings.ToLower(strings.TrimSpace(ann[len(mm[0]):]))
			if strings.HasPrefix(rest, "only") {
				tag.Only, tag.Plus = true, false
			}
		} else if strings.HasPrefix(strings.ToLower(ann), "only ") {
			if mm := stableVersionRe.FindStringSubmatch(strings.TrimSpace(ann[5:])); mm != nil {
				tag.Since, tag.Only, tag.Plus = mm[1], true, false
			}
		}
		tags = append(tags, tag)
	}
	return tags
}

// isStableAddr reports whether addr is a stable kernel list address.
func isStableAddr(addr string) bool {
	return addr == "stable@vger.kernel.org" || addr == "stable@kernel.org"
}

// extractAddr returns the bare lower-cased address in "Name <a@b>" or "a@b".
func extractAddr(v string) string {
	if i := strings.IndexByte(v, '<'); i >= 0 {
		if j := strings.IndexByte(v[i:], '>'); j > 0 {
			return strings.ToLower(strings.TrimSpace(v[i+1 : i+j]))
		}
	}
	f := strings.Fields(v)
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(strings.Trim(f[0], "<>,"))
}

// Fix is one "Fixes: <sha> ("subject")" trailer.
type Fix struct {
	// SHA is the abbreviated or full commit id, lower-cased.
	SHA string `json:"sha"`
	// Subject is the quoted subject of the fixed commit, if given.
	Subject string `json:"subject,omitempty"`
}

// fixesRe matches the sha at the start of a Fixes: value.
var fixesRe = regexp.MustCompile(`^(?:commit[ \t]+)?([0-9a-fA-F]{7,40})\b`)

// Fixes returns the Fixes: trailers of m.
func Fixes(m *Message) []Fix {
	var out []Fix
	for _, t := range m.Trailers {
		if t.Key != "Fixes" {
			continue
		}
		mm := fixesRe.FindStringSubmatch(t.Value)
		if mm == nil {
			continue
		}
		f := Fix{SHA: strings.ToLower(mm[1])}
		rest := strings.TrimSpace(t.Value[len(mm[0]):])
		if strings.HasPrefix(rest, "(") {
			rest = strings.TrimPrefix(rest, "(")
			if i := strings.LastIndexByte(rest, ')'); i >= 0 {
				rest = rest[:i]
			}
			rest = strings.TrimSpace(rest)
			if len(rest) >= 2 && rest[0] == '"' && rest[len(rest)-1] == '"' {
				rest = rest[1 : len(rest)-1]
			}
			f.Subject = rest
		}
		out = append(out, f)
	}
	return out
}
