package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Reply states. The send-once protocol (see package deliver) moves a reply
// queued -> sending -> sent; a reply found in sending after a crash is
// resolved by looking for its Message-ID on the receiving side before
// anything is sent again.
const (
	// ReplyQueued: in the outbox, waiting for delivery (or its next retry).
	ReplyQueued = "queued"
	// ReplySending: SMTP transaction started; outcome unknown until recorded.
	ReplySending = "sending"
	// ReplySent: accepted by the SMTP server (or seen on the list).
	ReplySent = "sent"
	// ReplyDryRun: left in the outbox for a human; sending is disabled.
	ReplyDryRun = "dry-run"
	// ReplyHeld: not sent by policy (allow-list); kept in the outbox.
	ReplyHeld = "held"
	// ReplyFailed: permanently rejected, or retries exhausted.
	ReplyFailed = "failed"
	// ReplyUnconfirmed: a crash hit mid-send and the receiving side did not
	// show the reply; held for a human rather than risking a second copy.
	ReplyUnconfirmed = "unconfirmed"
)

// Reply is one composed reply and its delivery state.
type Reply struct {
	MessageID   string
	SeriesKey   string
	InReplyTo   string
	List        string
	Author      string
	Path        string
	State       string
	Attempts    int
	NextAttempt time.Time
	LastError   string
	Created     time.Time
	Sending     time.Time
	Done        time.Time
	// Origin is where the series came from: "source/mailbox" of its first
	// message (the IMAP server and mailbox, or the replayed archive), a
	// fact the sender does not choose. Rate limits key on it.
	Origin string
	// DryRun is set when the reply was composed while sending was off: a
	// later sending run leaves it alone unless asked for the backlog.
	DryRun bool
}

const replyCols = `message_id, series_key, in_reply_to, list, author, path, state, attempts, next_attempt, last_error, created, sending, done, origin, dry_run`

func scanReply(sc interface{ Scan(...any) error }) (*Reply, error) {
	r := &Reply{}
	var next, created, sending, done int64
	err := sc.Scan(&r.MessageID, &r.SeriesKey, &r.InReplyTo, &r.List, &r.Author, &r.Path, &r.State, &r.Attempts,
		&next, &r.LastError, &created, &sending, &done, &r.Origin, &r.DryRun)
	r.NextAttempt, r.Created, r.Sending, r.Done = fromUnix(next), fromUnix(created), fromUnix(sending), fromUnix(done)
	return r, err
}

// GetReply returns one reply, or ErrNotFound.
func (s *Store) GetReply(ctx context.Context, messageID string) (*Reply, error) {
	r, err := scanReply(s.getReply.QueryRowContext(ctx, messageID))
	if err == sql.ErrNoRows {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reply %s: %w", messageID, err)
	}
	return r, nil
}

// Replies returns the replies in the given states, oldest first.
func (s *Store) Replies(ctx context.Context, states ...string) ([]*Reply, error) {
	args := make([]any, len(states))
	for i, st := range states {
		args[i] = st
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+replyCols+` FROM replies WHERE state IN (`+placeholders(len(states))+`)
		ORDER BY created, rowid`, args...)
	if err != nil {
		return nil, fmt.Errorf("replies: %w", err)
	}
	defer rows.Close()
	var out []*Reply
	for rows.Next() {
		r, err := scanReply(rows)
		if err != nil {
			return nil, fmt.Errorf("replies: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// MarkSending records, before the SMTP DATA command, that the reply is
// being sent. It fails (returning false) unless the reply is queued, so
// two senders never send the same reply.
func (s *Store) MarkSending(ctx context.Context, messageID string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE replies SET state=?, sending=?, attempts=attempts+1 WHERE message_id=? AND state=?`,
		ReplySending, time.Now().UnixNano(), messageID, ReplyQueued)
	if err != nil {
		return false, fmt.Errorf("reply %s: mark sending: %w", messageID, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// SetReplyState records a reply's new state. A terminal state (sent,
// dry-run, held, failed, unconfirmed) sets the done time; path, when not
// empty, replaces the outbox path (the file moved to cur/).
func (s *Store) SetReplyState(ctx context.Context, messageID, state, lastError, path string) error {
	var done int64
	if state != ReplyQueued && state != ReplySending {
		done = time.Now().UnixNano()
	}
	_, err := s.db.ExecContext(ctx, `UPDATE replies SET state=?, last_error=?, done=?, path=CASE WHEN ?='' THEN path ELSE ? END
		WHERE message_id=?`, state, lastError, done, path, path, messageID)
	if err != nil {
		return fmt.Errorf("reply %s: set %s: %w", messageID, state, err)
	}
	return nil
}

// Retry puts a reply back in the queue for another attempt at next.
func (s *Store) Retry(ctx context.Context, messageID, lastError string, next time.Time) error {
	_, err := s.db.ExecContext(ctx, `UPDATE replies SET state=?, last_error=?, next_attempt=? WHERE message_id=?`,
		ReplyQueued, lastError, unix(next), messageID)
	if err != nil {
		return fmt.Errorf("reply %s: retry: %w", messageID, err)
	}
	return nil
}

// Defer postpones a queued reply (rate limit) without counting an attempt.
func (s *Store) Defer(ctx context.Context, messageID, reason string, next time.Time) error {
	return s.Retry(ctx, messageID, reason, next)
}

// CountDelivered returns how many replies to the given list (column
// "list"), author (column "author") or from the given origin (column
// "origin") were delivered (sent or dry-run) or are being sent since the
// given time: the rate-limit window. An empty column counts all replies.
func (s *Store) CountDelivered(ctx context.Context, column, value string, since time.Time) (int, error) {
	where, args := "", []any{}
	switch column {
	case "list", "author", "origin":
		where, args = column+"=? AND ", append(args, value)
	case "":
	default:
		return 0, fmt.Errorf("count delivered: bad column %q", column)
	}
	args = append(args, ReplySent, ReplyDryRun, ReplySending, unix(since), ReplySending)
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM replies WHERE `+where+`state IN (?,?,?) AND (done>=? OR state=?)`,
		args...).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count delivered: %w", err)
	}
	return n, nil
}

// CountReplies returns the number of replies by state.
func (s *Store) CountReplies(ctx context.Context) (map[string]int, error) {
	return s.countBy(ctx, "replies", "state")
}

// SendBacklog puts the replies composed in dry-runs (state dry-run, or
// still queued from a dry-run, e.g. held back by a rate limit) back in the
// queue as replies to send, and returns how many. Only an operator's
// explicit request (--send-backlog) calls it.
func (s *Store) SendBacklog(ctx context.Context) (int, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE replies SET state=?, dry_run=0, done=0, next_attempt=0, last_error='sent from the dry-run backlog'
		WHERE state=? OR (state=? AND dry_run=1)`, ReplyQueued, ReplyDryRun, ReplyQueued)
	if err != nil {
		return 0, fmt.Errorf("send backlog: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
