package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Series states.
const (
	// SeriesProcessing: handed to a worker; a restart finds it here when
	// the daemon died mid-analysis and runs it again.
	SeriesProcessing = "processing"
	// SeriesDone: analysed, replies (if any) recorded.
	SeriesDone = "done"
	// SeriesFailed: the analysis failed; the error is kept.
	SeriesFailed = "failed"
)

// Series is one version of a patch series as recorded.
type Series struct {
	// Key identifies the series version: series ID + version.
	Key        string
	SeriesID   string
	Version    int
	Title      string
	Author     string
	Total      int
	Incomplete string
	State      string
	Attempts   int
	Error      string
	// Report is the analysis result (JSON), if any.
	Report   string
	Started  time.Time
	Finished time.Time
}

// GetSeries returns a recorded series, or ErrNotFound.
func (s *Store) GetSeries(ctx context.Context, key string) (*Series, error) {
	r := &Series{Key: key}
	var st, fin int64
	err := s.db.QueryRowContext(ctx, `SELECT series_id, version, title, author, total, incomplete, state, attempts, error, report, started, finished
		FROM series WHERE key=?`, key).Scan(&r.SeriesID, &r.Version, &r.Title, &r.Author, &r.Total, &r.Incomplete,
		&r.State, &r.Attempts, &r.Error, &r.Report, &st, &fin)
	if err == sql.ErrNoRows {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("series %s: %w", key, err)
	}
	r.Started, r.Finished = fromUnix(st), fromUnix(fin)
	return r, nil
}

// BeginSeries records that a worker starts on the series (state
// processing, attempts+1) and returns the number of attempts so far.
func (s *Store) BeginSeries(ctx context.Context, r *Series) (int, error) {
	var attempts int
	err := s.tx(ctx, func(t *sql.Tx) error {
		_, err := t.ExecContext(ctx, `INSERT INTO series(key, series_id, version, title, author, total, incomplete, state, attempts, started)
			VALUES (?,?,?,?,?,?,?,?,1,?)
			ON CONFLICT(key) DO UPDATE SET state=excluded.state, attempts=attempts+1, started=excluded.started,
				incomplete=excluded.incomplete, total=excluded.total`,
			r.Key, r.SeriesID, r.Version, r.Title, r.Author, r.Total, r.Incomplete, SeriesProcessing, time.Now().UnixNano())
		if err != nil {
			return err
		}
		return t.QueryRowContext(ctx, `SELECT attempts FROM series WHERE key=?`, r.Key).Scan(&attempts)
	})
	if err != nil {
		return 0, fmt.Errorf("begin series %s: %w", r.Key, err)
	}
	return attempts, nil
}

// FinishSeries records, in one transaction, the outcome of a series: its
// state (done or failed), error and report, the messages that formed it
// (no longer pending), and the replies composed for it (already written to
// the outbox; a reply recorded before is left as it is).
func (s *Store) FinishSeries(ctx context.Context, key, state, errText, report string, messageIDs []string, replies []*Reply) error {
	err := s.tx(ctx, func(t *sql.Tx) error {
		if _, err := t.ExecContext(ctx, `UPDATE series SET state=?, error=?, report=?, finished=? WHERE key=?`,
			state, errText, report, time.Now().UnixNano(), key); err != nil {
			return err
		}
		if err := setStatus(ctx, t, StatusDone, state, key, messageIDs); err != nil {
			return err
		}
		for _, r := range replies {
			if _, err := t.ExecContext(ctx, `INSERT INTO replies(message_id, series_key, in_reply_to, list, author, path, state, created, origin, dry_run)
				VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT(message_id) DO NOTHING`,
				r.MessageID, key, r.InReplyTo, r.List, r.Author, r.Path, ReplyQueued, time.Now().UnixNano(), r.Origin, r.DryRun); err != nil {
				return fmt.Errorf("reply %s: %w", r.MessageID, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("finish series %s: %w", key, err)
	}
	return nil
}

// SeriesOfMessages returns the distinct keys of finished series that
// contain any of the given Message-IDs, with their versions.
func (s *Store) SeriesOfMessages(ctx context.Context, ids []string) (map[string]int, error) {
	out, err := processedSeries(ctx, s.seriesOfMsg, ids)
	if err != nil {
		return nil, fmt.Errorf("series of messages: %w", err)
	}
	return out, nil
}

// CountSeries returns the number of recorded series by state.
func (s *Store) CountSeries(ctx context.Context) (map[string]int, error) {
	return s.countBy(ctx, "series", "state")
}
