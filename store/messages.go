package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Message statuses.
const (
	// StatusPending: a patch mail held until its series is complete.
	StatusPending = "pending"
	// StatusDone: part of a processed series.
	StatusDone = "done"
	// StatusLate: a part of a series that had already been processed.
	StatusLate = "late"
	// StatusExpired: held longer than the series wait without forming a series.
	StatusExpired = "expired"
	// StatusSkipped: not for the bot (no patch, own mail, bots, Auto-Submitted).
	StatusSkipped = "skipped"
	// StatusMalformed: could not be parsed or is hostile; logged and skipped.
	StatusMalformed = "malformed"
)

// Cursor is how far a mailbox has been read.
type Cursor struct {
	// UIDValidity is the mailbox's UIDVALIDITY when LastUID was recorded.
	UIDValidity uint32
	// LastUID is the highest UID handed to the daemon (every UID <= it is
	// recorded in messages, or was before the first start).
	LastUID uint32
	// Since is the start date chosen at the first start (zero: "now"); a
	// rescan after a UIDVALIDITY change starts from it.
	Since time.Time
}

// Cursor returns the cursor of source/mailbox, or ErrNotFound.
func (s *Store) Cursor(ctx context.Context, source, mailbox string) (Cursor, error) {
	var c Cursor
	var since int64
	err := s.db.QueryRowContext(ctx, `SELECT uidvalidity, last_uid, since FROM cursors WHERE source=? AND mailbox=?`,
		source, mailbox).Scan(&c.UIDValidity, &c.LastUID, &since)
	if err == sql.ErrNoRows {
		return c, ErrNotFound
	}
	if err != nil {
		return c, fmt.Errorf("cursor %s/%s: %w", source, mailbox, err)
	}
	c.Since = fromUnix(since)
	return c, nil
}

// SetCursor records the cursor of source/mailbox (first start, or a reset
// after a UIDVALIDITY change).
func (s *Store) SetCursor(ctx context.Context, source, mailbox string, c Cursor) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO cursors(source, mailbox, uidvalidity, last_uid, since, updated)
		VALUES (?,?,?,?,?,?)
		ON CONFLICT(source, mailbox) DO UPDATE SET uidvalidity=excluded.uidvalidity,
			last_uid=excluded.last_uid, since=excluded.since, updated=excluded.updated`,
		source, mailbox, c.UIDValidity, c.LastUID, unix(c.Since), time.Now().UnixNano())
	if err != nil {
		return fmt.Errorf("set cursor %s/%s: %w", source, mailbox, err)
	}
	return nil
}

// Message is one message as recorded.
type Message struct {
	MessageID   string
	Source      string
	Mailbox     string
	UIDValidity uint32
	UID         uint32
	Received    time.Time
	Status      string
	Reason      string
	SeriesKey   string
	// Raw is the message as fetched; kept while Status is pending or
	// command, and for the messages of a processed series (a command may
	// run the series again).
	Raw []byte
	// Command, for a message of status command, is the command mail to
	// record with it (queued).
	Command *Command
}

// RecordMessage records a fetched message and advances the cursor of its
// mailbox to its UID, in one transaction: a crash before the commit means
// the message is fetched again, a crash after it means it is never fetched
// again. A message whose Message-ID is already recorded (a rescan after a
// UIDVALIDITY change, the same mail in two mailboxes) is not recorded
// again: RecordMessage then returns false, and the cursor still advances.
// The raw text is kept only for pending messages and command mails, whose
// Command is recorded in the same transaction.
func (s *Store) RecordMessage(ctx context.Context, m *Message) (bool, error) {
	ins, err := s.RecordMessages(ctx, []*Message{m})
	if err != nil {
		return false, err
	}
	return ins[0], nil
}

// RecordMessages records several messages in one transaction (replay
// batches), with RecordMessage's semantics for each; inserted[i] tells
// whether ms[i] was new.
func (s *Store) RecordMessages(ctx context.Context, ms []*Message) ([]bool, error) {
	inserted := make([]bool, len(ms))
	err := s.tx(ctx, func(t *sql.Tx) error {
		ins, adv := t.StmtContext(ctx, s.insertMsg), t.StmtContext(ctx, s.advanceCursor)
		for i, m := range ms {
			raw := m.Raw
			if m.Status != StatusPending && m.Status != StatusCommand {
				raw = nil
			}
			res, err := ins.ExecContext(ctx,
				m.MessageID, m.Source, m.Mailbox, m.UIDValidity, m.UID, unix(m.Received), m.Status, m.Reason, m.SeriesKey, raw)
			if err != nil {
				return fmt.Errorf("message %s: %w", m.MessageID, err)
			}
			n, _ := res.RowsAffected()
			inserted[i] = n == 1
			if inserted[i] && m.Command != nil && m.Status == StatusCommand {
				c := *m.Command
				c.MessageID = m.MessageID
				if err := insertCommand(ctx, t, &c); err != nil {
					return err
				}
			}
			if m.Mailbox == "" {
				continue
			}
			if _, err := adv.ExecContext(ctx, m.UID, time.Now().UnixNano(), m.Source, m.Mailbox, m.UIDValidity); err != nil {
				return fmt.Errorf("message %s: cursor: %w", m.MessageID, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("record messages: %w", err)
	}
	return inserted, nil
}

// HasMessage reports whether a Message-ID has been recorded.
func (s *Store) HasMessage(ctx context.Context, messageID string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE message_id=?`, messageID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("lookup %s: %w", messageID, err)
	}
	return n > 0, nil
}

// SeriesMessages returns the raw text of the messages of a processed
// series, in the order they were received.
func (s *Store) SeriesMessages(ctx context.Context, key string) ([][]byte, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT raw FROM messages WHERE series_key=? AND status=? AND raw IS NOT NULL
		ORDER BY received, rowid`, key, StatusDone)
	if err != nil {
		return nil, fmt.Errorf("messages of %s: %w", key, err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("messages of %s: %w", key, err)
		}
		out = append(out, raw)
	}
	return out, rows.Err()
}

// GetMessage returns one recorded message (without its raw text), or ErrNotFound.
func (s *Store) GetMessage(ctx context.Context, messageID string) (*Message, error) {
	m := &Message{}
	var recv int64
	err := s.db.QueryRowContext(ctx, `SELECT message_id, source, mailbox, uidvalidity, uid, received, status, reason, series_key
		FROM messages WHERE message_id=?`, messageID).Scan(&m.MessageID, &m.Source, &m.Mailbox, &m.UIDValidity, &m.UID, &recv, &m.Status, &m.Reason, &m.SeriesKey)
	if err == sql.ErrNoRows {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("message %s: %w", messageID, err)
	}
	m.Received = fromUnix(recv)
	return m, nil
}

// PendingMessages returns the messages held for their series, raw text
// included, oldest first.
func (s *Store) PendingMessages(ctx context.Context) ([]*Message, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT message_id, source, mailbox, uidvalidity, uid, received, raw
		FROM messages WHERE status=? ORDER BY received, rowid`, StatusPending)
	if err != nil {
		return nil, fmt.Errorf("pending messages: %w", err)
	}
	defer rows.Close()
	var out []*Message
	for rows.Next() {
		m := &Message{Status: StatusPending}
		var recv int64
		if err := rows.Scan(&m.MessageID, &m.Source, &m.Mailbox, &m.UIDValidity, &m.UID, &recv, &m.Raw); err != nil {
			return nil, fmt.Errorf("pending messages: %w", err)
		}
		m.Received = fromUnix(recv)
		out = append(out, m)
	}
	return out, rows.Err()
}

// SetMessageStatus moves messages out of pending (expired, late, ...),
// dropping their raw text (kept for done: a processed series' messages).
func (s *Store) SetMessageStatus(ctx context.Context, status, reason, seriesKey string, ids ...string) error {
	return s.tx(ctx, func(t *sql.Tx) error {
		return setStatus(ctx, t, status, reason, seriesKey, ids)
	})
}

func setStatus(ctx context.Context, t *sql.Tx, status, reason, seriesKey string, ids []string) error {
	for _, id := range ids {
		if _, err := t.ExecContext(ctx, `UPDATE messages SET status=?, reason=?, series_key=?, raw=CASE WHEN ?=? THEN raw ELSE NULL END WHERE message_id=?`,
			status, reason, seriesKey, status, StatusDone, id); err != nil {
			return fmt.Errorf("message %s: %w", id, err)
		}
	}
	return nil
}

// CountMessages returns the number of recorded messages by status.
func (s *Store) CountMessages(ctx context.Context) (map[string]int, error) {
	return s.countBy(ctx, "messages", "status")
}

// placeholders returns "?,?,?" for n values.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}
