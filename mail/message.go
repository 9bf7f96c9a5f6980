// Package mail parses patch mail (RFC 5322 + MIME) into Messages: headers,
// commit message, trailers and the diff. Parsing lives in parse.go, MIME
// bodies (multipart, format=flowed) in mime.go, the diff in diff.go,
// patches that are not mail (git diff/show output, quilt and DEP-3 files)
// in plain.go, subject tags in subject.go, trailers in trailers.go, the
// mbox splitter in mbox.go, input paths (files, Maildirs, stdin; streamed,
// with FIFOs, devices and Maildir symlinks skipped) in input.go, and
// parsing them all in load.go.
package mail

import "time"

// Address is one mailbox from a From/To/Cc header.
type Address struct {
	// Name is the display name, possibly empty.
	Name string `json:"name,omitempty"`
	// Addr is the bare address, lower-cased domain.
	Addr string `json:"addr"`
}

// Subject is a parsed patch subject such as "[RFC PATCH net-next v2 3/7] foo: bar".
type Subject struct {
	// Raw is the full subject as received (unfolded).
	Raw string `json:"raw"`
	// Reply is set when the subject starts with Re:/Fwd: (any number).
	Reply bool `json:"reply,omitempty"`
	// Patch is set when a [PATCH ...] (or [PATCHv3], [RFC PATCH], ...) tag is present.
	Patch bool `json:"patch,omitempty"`
	// RFC, Resend mark those keywords in the tag.
	RFC    bool `json:"rfc,omitempty"`
	Resend bool `json:"resend,omitempty"`
	// Autosel is the stable version of an "[PATCH AUTOSEL 5.5 n/m]" subject ("5.5").
	Autosel string `json:"autosel,omitempty"`
	// Tree is a target tree keyword such as "net-next", if any.
	Tree string `json:"tree,omitempty"`
	// Version is the series version (1 when absent).
	Version int `json:"version"`
	// Number and Total are n and N of "n/N"; both 0 when absent.
	Number int `json:"number,omitempty"`
	Total  int `json:"total,omitempty"`
	// Stable is the stable tree of a stable review subject such as
	// "[PATCH 5.10 12/40]" ("5.10"), if any.
	Stable string `json:"stable,omitempty"`
	// Title is the subject with prefixes and tags removed.
	Title string `json:"title"`
}

// Trailer is one "Key: value" line from the end of a commit message.
type Trailer struct {
	// Key is the canonical key, e.g. "Signed-off-by", "Fixes", "Cc".
	Key string `json:"key"`
	// Value is the text after the colon, without a trailing "# comment".
	Value string `json:"value"`
	// Comment is the text after '#', e.g. "5.4+" in "Cc: stable@... # 5.4+".
	Comment string `json:"comment,omitempty"`
}

// Message is one parsed mail.
//
// Message-IDs (MessageID, InReplyTo, References) are stored without angle
// brackets, as go-message returns them.
type Message struct {
	// MessageID is the Message-ID header, or, when it is missing, a
	// synthetic one: the hex SHA-256 of the raw message followed by
	// "@autosel-bot.invalid" (deterministic for the same bytes).
	MessageID  string    `json:"message_id"`
	InReplyTo  string    `json:"in_reply_to,omitempty"`
	References []string  `json:"references,omitempty"`
	From       Address   `json:"from"`
	To         []Address `json:"to,omitempty"`
	Cc         []Address `json:"cc,omitempty"`
	Date       time.Time `json:"date"`
	// Author is the patch author: an in-body "From:" line (as git
	// format-patch writes when the sender is not the author), else From.
	Author  Address `json:"author"`
	Subject Subject `json:"subject"`
	// ListID is the List-Id header value, if any.
	ListID string `json:"list_id,omitempty"`
	// AutoSubmitted is the Auto-Submitted header value, if any.
	AutoSubmitted string `json:"auto_submitted,omitempty"`
	// Body is the decoded text of the message (all text parts, patch
	// attachments included), with CRLF turned into LF.
	Body string `json:"-"`
	// CommitMsg is the commit message: body text before the "---" line or
	// the diff, trailers included.
	CommitMsg string `json:"-"`
	// Trailers are the trailer lines of the commit message, in order.
	Trailers []Trailer `json:"trailers,omitempty"`
	// UpstreamCommit is the sha from a "[ Upstream commit <sha> ]" or
	// "commit <sha> upstream." line.
	UpstreamCommit string `json:"upstream_commit,omitempty"`
	// Diff is the unified diff carried by the message (empty if none). For a
	// review reply it is the unquoted inline diff.
	Diff string `json:"-"`
	// DiffLine is the 1-based line of Body where Diff starts.
	DiffLine int `json:"-"`
	// BaseCommit is the commit the patch applies to, from the
	// "base-commit: <sha>" line `git format-patch --base` writes after the
	// diff (empty when there is none).
	BaseCommit string `json:"base_commit,omitempty"`
	// InlineReview is set when the diff was found in a reply (a patch
	// proposed in review rather than a submitted patch).
	InlineReview bool `json:"inline_review,omitempty"`
	// File is the local file that held this message alone, as given or
	// inside a Maildir (a git format-patch file, a message of git
	// mailsplit): what names the patch in one-line reports. It is empty
	// for a message of an mbox of several, of stdin or of a download.
	File string `json:"-"`
}
