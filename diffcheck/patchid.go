package diffcheck

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

// PatchID identifies a change the way `git patch-id` does, whatever the
// line numbers and white space: a hash of the changed files' names and
// their added and removed lines with all white space taken out (hunk
// positions, context lines, index lines and the commit message do not go
// in). Two versions of a patch with the same PatchID make the same
// change; a rebase keeps it. It is "" for a diff that changes no line.
func PatchID(diff string) string {
	h := sha1.New()
	n := 0
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
			h.Write([]byte(strings.TrimSpace(l) + "\n"))
		case strings.HasPrefix(l, "diff --git "), strings.HasPrefix(l, "index "), strings.HasPrefix(l, "@@"),
			strings.HasPrefix(l, `\ No newline`):
		case strings.HasPrefix(l, "+"), strings.HasPrefix(l, "-"):
			h.Write([]byte(l[:1] + strings.Join(strings.Fields(l[1:]), "") + "\n"))
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
