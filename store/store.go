// Package store keeps the watch daemon's state in an embedded SQLite
// database (modernc.org/sqlite, no cgo): IMAP cursors (UIDVALIDITY + last
// UID per mailbox), every message seen and what became of it, series and
// their versions with analysis results, and replies with their delivery
// state. Schema changes are numbered migrations (migrate.go) recorded in a
// version table, so a restart resumes exactly where the last run stopped.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is an open state database. It is safe for concurrent use.
type Store struct {
	db *sql.DB
	// Prepared statements of the per-message hot path.
	insertMsg, advanceCursor, getReply, seriesOfMsg *sql.Stmt
}

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

// Open opens (creating if needed) the database at path and applies pending
// migrations. path ":memory:" opens a private in-memory database.
func Open(ctx context.Context, path string) (*Store, error) {
	dsn := path
	if path != ":memory:" {
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("store %s: %w", path, err)
			}
		}
		dsn = "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	// One connection: SQLite serialises writers anyway, and this keeps
	// ":memory:" one database and avoids SQLITE_BUSY between our own goroutines.
	db.SetMaxOpenConns(1)
	s := &Store{db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	if err := s.prepare(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return s, nil
}

// prepare compiles the statements used once per message.
func (s *Store) prepare(ctx context.Context) error {
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&s.insertMsg, `INSERT INTO messages(message_id, source, mailbox, uidvalidity, uid, received, status, reason, series_key, raw)
			VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT(message_id) DO NOTHING`},
		{&s.advanceCursor, `UPDATE cursors SET last_uid=max(last_uid, ?), updated=?
			WHERE source=? AND mailbox=? AND uidvalidity=?`},
		{&s.getReply, `SELECT ` + replyCols + ` FROM replies WHERE message_id=?`},
		{&s.seriesOfMsg, `SELECT s.key, s.version FROM messages m JOIN series s ON s.key = m.series_key
			WHERE m.message_id = ? AND s.state IN ('done','failed')`},
	} {
		st, err := s.db.PrepareContext(ctx, p.sql)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		*p.st = st
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// tx runs fn in a transaction, committing when it returns nil.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	t, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(t); err != nil {
		t.Rollback()
		return err
	}
	return t.Commit()
}

// unix converts a time to the stored form (Unix nanoseconds, 0 for zero).
func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromUnix converts the stored form back.
func fromUnix(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// countBy returns the number of rows of table grouped by column (a fixed
// identifier from this package, never user input).
func (s *Store) countBy(ctx context.Context, table, column string) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+column+`, count(*) FROM `+table+` GROUP BY `+column)
	if err != nil {
		return nil, fmt.Errorf("count %s: %w", table, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var key string
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			return nil, fmt.Errorf("count %s: %w", table, err)
		}
		out[key] = n
	}
	return out, rows.Err()
}
