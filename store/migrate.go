package store

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations are the schema steps, applied in order; migrations[i] takes
// the schema from version i to i+1. Append only: never edit a released step.
var migrations = []string{
	// 1: cursors, messages, series, replies.
	`
CREATE TABLE cursors (
	source      TEXT NOT NULL,
	mailbox     TEXT NOT NULL,
	uidvalidity INTEGER NOT NULL,
	last_uid    INTEGER NOT NULL,
	since       INTEGER NOT NULL DEFAULT 0,
	updated     INTEGER NOT NULL,
	PRIMARY KEY (source, mailbox)
);
CREATE TABLE messages (
	message_id  TEXT PRIMARY KEY,
	source      TEXT NOT NULL,
	mailbox     TEXT NOT NULL,
	uidvalidity INTEGER NOT NULL,
	uid         INTEGER NOT NULL,
	received    INTEGER NOT NULL,
	status      TEXT NOT NULL,
	reason      TEXT NOT NULL DEFAULT '',
	series_key  TEXT NOT NULL DEFAULT '',
	raw         BLOB
);
CREATE INDEX messages_status ON messages(status);
CREATE INDEX messages_series ON messages(series_key);
CREATE TABLE series (
	key        TEXT PRIMARY KEY,
	series_id  TEXT NOT NULL,
	version    INTEGER NOT NULL,
	title      TEXT NOT NULL,
	author     TEXT NOT NULL,
	total      INTEGER NOT NULL,
	incomplete TEXT NOT NULL DEFAULT '',
	state      TEXT NOT NULL,
	attempts   INTEGER NOT NULL DEFAULT 0,
	error      TEXT NOT NULL DEFAULT '',
	report     TEXT NOT NULL DEFAULT '',
	started    INTEGER NOT NULL DEFAULT 0,
	finished   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX series_id ON series(series_id);
CREATE TABLE replies (
	message_id   TEXT PRIMARY KEY,
	series_key   TEXT NOT NULL,
	in_reply_to  TEXT NOT NULL DEFAULT '',
	list         TEXT NOT NULL DEFAULT '',
	author       TEXT NOT NULL DEFAULT '',
	path         TEXT NOT NULL,
	state        TEXT NOT NULL,
	attempts     INTEGER NOT NULL DEFAULT 0,
	next_attempt INTEGER NOT NULL DEFAULT 0,
	last_error   TEXT NOT NULL DEFAULT '',
	created      INTEGER NOT NULL,
	sending      INTEGER NOT NULL DEFAULT 0,
	done         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX replies_state ON replies(state);
CREATE INDEX replies_list ON replies(list, created);
CREATE INDEX replies_author ON replies(author, created);
`,
	// 2: where a reply's series came from (rate limits key on it, not on
	// headers the sender writes), and whether it was composed in a dry-run
	// (never sent later unless the operator asks for the backlog).
	`
ALTER TABLE replies ADD COLUMN origin TEXT NOT NULL DEFAULT '';
ALTER TABLE replies ADD COLUMN dry_run INTEGER NOT NULL DEFAULT 0;
CREATE INDEX replies_origin ON replies(origin, created);
`,
	// 3: GitHub pull requests, one row per PR head (see github.go).
	`
CREATE TABLE github_prs (
	repo         TEXT NOT NULL,
	number       INTEGER NOT NULL,
	head_sha     TEXT NOT NULL,
	state        TEXT NOT NULL,
	attempts     INTEGER NOT NULL DEFAULT 0,
	check_run_id INTEGER NOT NULL DEFAULT 0,
	review_id    INTEGER NOT NULL DEFAULT 0,
	conclusion   TEXT NOT NULL DEFAULT '',
	superseded   INTEGER NOT NULL DEFAULT 0,
	report       TEXT NOT NULL DEFAULT '',
	error        TEXT NOT NULL DEFAULT '',
	created      INTEGER NOT NULL,
	updated      INTEGER NOT NULL,
	PRIMARY KEY (repo, number, head_sha)
);
CREATE INDEX github_prs_pr ON github_prs(repo, number, created);
CREATE INDEX github_prs_state ON github_prs(state);
`,
	// 4: versions of a series (lineage: the key of its first version
	// analysed; the titles that link a new version to it), commands by
	// mail, the findings they ignore per lineage, and the refusals sent
	// to untrusted senders (see commands.go).
	`
ALTER TABLE series ADD COLUMN lineage TEXT NOT NULL DEFAULT '';
ALTER TABLE series ADD COLUMN prev_key TEXT NOT NULL DEFAULT '';
CREATE TABLE series_titles (
	author TEXT NOT NULL,
	title  TEXT NOT NULL,
	key    TEXT NOT NULL,
	PRIMARY KEY (author, title, key)
);
CREATE TABLE commands (
	message_id TEXT PRIMARY KEY,
	sender     TEXT NOT NULL,
	list       TEXT NOT NULL DEFAULT '',
	origin     TEXT NOT NULL DEFAULT '',
	verbs      TEXT NOT NULL DEFAULT '',
	series_key TEXT NOT NULL DEFAULT '',
	state      TEXT NOT NULL,
	attempts   INTEGER NOT NULL DEFAULT 0,
	result     TEXT NOT NULL DEFAULT '',
	reply_id   TEXT NOT NULL DEFAULT '',
	created    INTEGER NOT NULL,
	finished   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX commands_state ON commands(state, created);
CREATE TABLE ignores (
	lineage    TEXT NOT NULL,
	finding_id TEXT NOT NULL,
	reason     TEXT NOT NULL DEFAULT '',
	by         TEXT NOT NULL DEFAULT '',
	command    TEXT NOT NULL DEFAULT '',
	created    INTEGER NOT NULL,
	PRIMARY KEY (lineage, finding_id)
);
CREATE TABLE refusals (
	sender TEXT PRIMARY KEY,
	last   INTEGER NOT NULL
);
`,
}

// SchemaVersion is the schema version this build writes.
func SchemaVersion() int { return len(migrations) }

// migrate brings the database to SchemaVersion, one transaction per step.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("schema_version: %w", err)
	}
	v, err := s.Version(ctx)
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this binary's %d", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		err := s.tx(ctx, func(t *sql.Tx) error {
			if _, err := t.ExecContext(ctx, migrations[i]); err != nil {
				return err
			}
			if _, err := t.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
				return err
			}
			_, err := t.ExecContext(ctx, `INSERT INTO schema_version(version) VALUES (?)`, i+1)
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	return nil
}

// Version returns the schema version recorded in the database.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return v, nil
}
