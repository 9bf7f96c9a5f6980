package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// StatusCommand: a reply carrying "#autosel" commands; its raw text is
// kept until the command is done (a restart runs it again).
const StatusCommand = "command"

// Command states. A command mail is recorded queued with its message (one
// transaction), is running while a worker has it (a restart finds it
// there and runs it again: its reply has a deterministic Message-ID, so it
// is still sent once), and ends done, refused or failed, its reply (if
// any) recorded in the same transaction.
const (
	// CommandQueued: recorded, waiting (for its series to be analysed).
	CommandQueued = "queued"
	// CommandRunning: handed to the command worker.
	CommandRunning = "running"
	// CommandDone: run and answered.
	CommandDone = "done"
	// CommandRefused: from a sender the configuration does not trust.
	CommandRefused = "refused"
	// CommandFailed: could not be run (or kept failing).
	CommandFailed = "failed"
)

// Command is a mail of "#autosel" commands as recorded.
type Command struct {
	// MessageID is the command mail's Message-ID.
	MessageID string
	// Sender is the From address, in lower case.
	Sender string
	// List names the list the mail was posted to (List-Id or first To).
	List string
	// Origin is "source/mailbox" of the mail (rate limits key on it).
	Origin string
	// Verbs are the commands' verbs, space-separated (for logs).
	Verbs string
	// SeriesKey is the series the commands were resolved to.
	SeriesKey string
	State     string
	Attempts  int
	// Result says what was done, for logs and the operator.
	Result string
	// ReplyID is the Message-ID of the reply, if one was sent.
	ReplyID  string
	Created  time.Time
	Finished time.Time
}

const commandCols = `message_id, sender, list, origin, verbs, series_key, state, attempts, result, reply_id, created, finished`

func scanCommand(sc interface{ Scan(...any) error }) (*Command, error) {
	c := &Command{}
	var created, finished int64
	err := sc.Scan(&c.MessageID, &c.Sender, &c.List, &c.Origin, &c.Verbs, &c.SeriesKey, &c.State, &c.Attempts,
		&c.Result, &c.ReplyID, &created, &finished)
	c.Created, c.Finished = fromUnix(created), fromUnix(finished)
	return c, err
}

// insertCommand records a command mail, queued (with RecordMessages).
func insertCommand(ctx context.Context, t *sql.Tx, c *Command) error {
	created := c.Created
	if created.IsZero() {
		created = time.Now()
	}
	_, err := t.ExecContext(ctx, `INSERT INTO commands(message_id, sender, list, origin, verbs, state, created)
		VALUES (?,?,?,?,?,?,?) ON CONFLICT(message_id) DO NOTHING`,
		c.MessageID, strings.ToLower(c.Sender), c.List, c.Origin, c.Verbs, CommandQueued, unix(created))
	if err != nil {
		return fmt.Errorf("command %s: %w", c.MessageID, err)
	}
	return nil
}

// GetCommand returns one command mail, or ErrNotFound.
func (s *Store) GetCommand(ctx context.Context, messageID string) (*Command, error) {
	c, err := scanCommand(s.db.QueryRowContext(ctx, `SELECT `+commandCols+` FROM commands WHERE message_id=?`, messageID))
	if err == sql.ErrNoRows {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("command %s: %w", messageID, err)
	}
	return c, nil
}

// PendingCommands returns the command mails queued or running (left so
// by a crash), oldest first.
func (s *Store) PendingCommands(ctx context.Context) ([]*Command, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+commandCols+` FROM commands WHERE state IN (?,?) ORDER BY created, rowid`,
		CommandQueued, CommandRunning)
	if err != nil {
		return nil, fmt.Errorf("pending commands: %w", err)
	}
	defer rows.Close()
	var out []*Command
	for rows.Next() {
		c, err := scanCommand(rows)
		if err != nil {
			return nil, fmt.Errorf("pending commands: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// CountCommands returns the number of command mails by state.
func (s *Store) CountCommands(ctx context.Context) (map[string]int, error) {
	return s.countBy(ctx, "commands", "state")
}

// CommandRaw returns the raw text of a command mail.
func (s *Store) CommandRaw(ctx context.Context, messageID string) ([]byte, error) {
	var raw []byte
	err := s.db.QueryRowContext(ctx, `SELECT raw FROM messages WHERE message_id=?`, messageID).Scan(&raw)
	if err == sql.ErrNoRows || (err == nil && raw == nil) {
		return nil, fmt.Errorf("command %s: %w", messageID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("command %s: %w", messageID, err)
	}
	return raw, nil
}

// StartCommand marks a command mail running and counts the attempt; it
// returns the attempts so far (a command that keeps killing the daemon is
// given up by the caller).
func (s *Store) StartCommand(ctx context.Context, messageID string) (int, error) {
	var n int
	err := s.tx(ctx, func(t *sql.Tx) error {
		if _, err := t.ExecContext(ctx, `UPDATE commands SET state=?, attempts=attempts+1 WHERE message_id=?`, CommandRunning, messageID); err != nil {
			return err
		}
		return t.QueryRowContext(ctx, `SELECT attempts FROM commands WHERE message_id=?`, messageID).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("start command %s: %w", messageID, err)
	}
	return n, nil
}

// WaitCommand puts a running command mail back in the queue without
// counting the attempt (its series is not analysed yet).
func (s *Store) WaitCommand(ctx context.Context, messageID, why string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE commands SET state=?, attempts=max(attempts-1, 0), result=? WHERE message_id=?`,
		CommandQueued, why, messageID)
	if err != nil {
		return fmt.Errorf("command %s: wait: %w", messageID, err)
	}
	return nil
}

// Ignore is a finding not reported again for a series and its next
// versions (an "#autosel ignore" command).
type Ignore struct {
	// Lineage is the key of the series' first version analysed.
	Lineage string
	// FindingID is the finding's id.
	FindingID string
	// Reason is the reason the command gave.
	Reason string
	// By is who gave the command ("Name <addr>").
	By string
	// Command is the command mail's Message-ID.
	Command string
	Created time.Time
}

// Ignores returns the ignored findings of a lineage, by finding id.
func (s *Store) Ignores(ctx context.Context, lineage string) ([]Ignore, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT lineage, finding_id, reason, by, command, created FROM ignores WHERE lineage=? ORDER BY finding_id`, lineage)
	if err != nil {
		return nil, fmt.Errorf("ignores of %s: %w", lineage, err)
	}
	defer rows.Close()
	var out []Ignore
	for rows.Next() {
		var ig Ignore
		var created int64
		if err := rows.Scan(&ig.Lineage, &ig.FindingID, &ig.Reason, &ig.By, &ig.Command, &created); err != nil {
			return nil, fmt.Errorf("ignores of %s: %w", lineage, err)
		}
		ig.Created = fromUnix(created)
		out = append(out, ig)
	}
	return out, rows.Err()
}

// LastRefusal returns when sender was last refused (zero: never).
func (s *Store) LastRefusal(ctx context.Context, sender string) (time.Time, error) {
	var last int64
	err := s.db.QueryRowContext(ctx, `SELECT last FROM refusals WHERE sender=?`, strings.ToLower(sender)).Scan(&last)
	if err == sql.ErrNoRows {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("refusal of %s: %w", sender, err)
	}
	return fromUnix(last), nil
}

// CommandOutcome is what became of a command mail, recorded at once by
// FinishCommand.
type CommandOutcome struct {
	// MessageID is the command mail's.
	MessageID string
	// State is done, refused or failed.
	State string
	// SeriesKey is the series the commands were about ("" if none).
	SeriesKey string
	// Result says what was done.
	Result string
	// Reply is the reply (already in the outbox), nil for none.
	Reply *Reply
	// Ignore are findings to ignore from now on; Unignore the finding ids
	// of Lineage to report again.
	Ignore   []Ignore
	Unignore []string
	Lineage  string
	// Refused, when set, records that its sender was refused now (the
	// one refusal a day).
	Refused string
}

// FinishCommand records, in one transaction, the outcome of a command
// mail: its state and result, its reply (queued for delivery; one
// recorded before is left as it is), the findings it ignores or reports
// again, the refusal of its sender, and its message, done (raw text
// dropped). Finishing a command twice (a crash between the reply and this
// commit runs it again) changes nothing the first did not.
func (s *Store) FinishCommand(ctx context.Context, o *CommandOutcome) error {
	now := time.Now().UnixNano()
	err := s.tx(ctx, func(t *sql.Tx) error {
		replyID := ""
		if o.Reply != nil {
			r := o.Reply
			replyID = r.MessageID
			if _, err := t.ExecContext(ctx, `INSERT INTO replies(message_id, series_key, in_reply_to, list, author, path, state, created, origin, dry_run)
				VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT(message_id) DO NOTHING`,
				r.MessageID, o.SeriesKey, r.InReplyTo, r.List, r.Author, r.Path, ReplyQueued, now, r.Origin, r.DryRun); err != nil {
				return fmt.Errorf("reply %s: %w", r.MessageID, err)
			}
		}
		if _, err := t.ExecContext(ctx, `UPDATE commands SET state=?, series_key=?, result=?, reply_id=?, finished=? WHERE message_id=?`,
			o.State, o.SeriesKey, o.Result, replyID, now, o.MessageID); err != nil {
			return err
		}
		for _, ig := range o.Ignore {
			if _, err := t.ExecContext(ctx, `INSERT INTO ignores(lineage, finding_id, reason, by, command, created) VALUES (?,?,?,?,?,?)
				ON CONFLICT(lineage, finding_id) DO UPDATE SET reason=excluded.reason, by=excluded.by, command=excluded.command`,
				o.Lineage, ig.FindingID, ig.Reason, ig.By, o.MessageID, now); err != nil {
				return fmt.Errorf("ignore %s: %w", ig.FindingID, err)
			}
		}
		for _, id := range o.Unignore {
			if _, err := t.ExecContext(ctx, `DELETE FROM ignores WHERE lineage=? AND finding_id=?`, o.Lineage, id); err != nil {
				return fmt.Errorf("unignore %s: %w", id, err)
			}
		}
		if o.Refused != "" {
			if _, err := t.ExecContext(ctx, `INSERT INTO refusals(sender, last) VALUES (?,?) ON CONFLICT(sender) DO UPDATE SET last=excluded.last`,
				strings.ToLower(o.Refused), now); err != nil {
				return fmt.Errorf("refusal: %w", err)
			}
		}
		_, err := t.ExecContext(ctx, `UPDATE messages SET status=?, reason=?, series_key=?, raw=NULL WHERE message_id=?`,
			StatusDone, "command "+o.State, o.SeriesKey, o.MessageID)
		return err
	})
	if err != nil {
		return fmt.Errorf("finish command %s: %w", o.MessageID, err)
	}
	return nil
}

// Resolution is what a command mail's references lead to.
type Resolution struct {
	// SeriesKey is the series (done or failed) the first reference that
	// leads to one belongs to: a reply of the bot's, or a message of the
	// series.
	SeriesKey string
	// Held is set when no reference leads to a processed series but one
	// is a message still held for its series: the command waits for it.
	Held bool
}

// ResolveRefs finds the series a command mail is about from the Message-IDs
// it refers to, most specific (In-Reply-To) first.
func (s *Store) ResolveRefs(ctx context.Context, refs []string) (*Resolution, error) {
	res := &Resolution{}
	for _, id := range refs {
		if id == "" {
			continue
		}
		var key string
		err := s.db.QueryRowContext(ctx, `SELECT series_key FROM replies WHERE message_id=? AND series_key<>''`, id).Scan(&key)
		if err == nil {
			if sr, err := s.GetSeries(ctx, key); err == nil && (sr.State == SeriesDone || sr.State == SeriesFailed) {
				res.SeriesKey = key
				return res, nil
			}
		} else if !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("resolve %s: %w", id, err)
		}
		var status string
		err = s.db.QueryRowContext(ctx, `SELECT m.status, m.series_key FROM messages m JOIN series s ON s.key=m.series_key
			WHERE m.message_id=? AND s.state IN (?,?)`, id, SeriesDone, SeriesFailed).Scan(&status, &key)
		if err == nil && status != StatusCommand {
			res.SeriesKey = key
			return res, nil
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("resolve %s: %w", id, err)
		}
		if err := s.db.QueryRowContext(ctx, `SELECT status FROM messages WHERE message_id=?`, id).Scan(&status); err == nil && status == StatusPending {
			res.Held = true
		}
	}
	return res, nil
}
