// Package series groups Messages into patch series: cover letters, numbered
// patches, versions, replies and patches proposed inline in review.
package series

import (
	"time"

	"github.com/autosel-bot/autosel-bot/mail"
)

// Patch is one patch of a series.
type Patch struct {
	// Msg is the message carrying the patch.
	Msg *mail.Message `json:"message"`
	// Number is n of n/N (1 for a single patch).
	Number int `json:"number"`
	// InReview marks a diff proposed inline in a review reply (like a
	// "quick fix" in a reply); such patches are attached to their thread.
	InReview bool `json:"in_review,omitempty"`
}

// Series is one version of a patch series.
type Series struct {
	// ID is a stable identifier: the Message-ID of the cover letter, or of
	// the first patch when there is no cover letter.
	ID string `json:"id"`
	// Title is the cover letter's title, or the first patch's.
	Title string `json:"title"`
	// Author is the sender of the series.
	Author mail.Address `json:"author"`
	// Version is the series version (v2 -> 2; 1 when untagged).
	Version int `json:"version"`
	// Total is N of n/N (1 for a single patch).
	Total int `json:"total"`
	// Date is the date of the earliest message of the series.
	Date time.Time `json:"date"`
	// Cover is the 0/N cover letter, if any.
	Cover *mail.Message `json:"cover,omitempty"`
	// Patches are the submitted patches, ordered by Number.
	Patches []*Patch `json:"patches"`
	// Review holds diffs proposed inline in replies to the series.
	Review []*Patch `json:"review,omitempty"`
	// Replies are other messages in the thread (reviews, acks, bots).
	Replies []*mail.Message `json:"-"`
	// Incomplete says why the series is not complete ("missing 2/3"), or
	// is empty when every part is present.
	Incomplete string `json:"incomplete,omitempty"`
	// Supersedes is the ID of the previous version of this series, if seen.
	Supersedes string `json:"supersedes,omitempty"`
	// SupersededBy is the ID of a newer version of this series, if seen.
	SupersededBy string `json:"superseded_by,omitempty"`
	// Thread is the Message-ID of the thread root the series was found in
	// (may name a message that is not in the input).
	Thread string `json:"thread,omitempty"`
	// RFC and Resend copy the subject keywords of the series.
	RFC    bool `json:"rfc,omitempty"`
	Resend bool `json:"resend,omitempty"`
	// Notes record what assembly decided on the way: duplicates dropped,
	// parts re-threaded by author and time, a cover letter not seen.
	Notes []string `json:"notes,omitempty"`
}
