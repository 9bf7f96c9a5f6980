package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
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
	// Lineage is the key of the first version of the series analysed
	// (its own key for a first version): commands' ignores hold for the
	// whole lineage.
	Lineage string
	// PrevKey is the key of the previous version analysed ("" if none).
	PrevKey string
	// Titles are the normalised titles (cover letter, patches) that link
	// a later version by the same author to this one (BeginSeries).
	Titles []string
}

// GetSeries returns a recorded series, or ErrNotFound.
func (s *Store) GetSeries(ctx context.Context, key string) (*Series, error) {
	r := &Series{Key: key}
	var st, fin int64
	err := s.db.QueryRowContext(ctx, `SELECT series_id, version, title, author, total, incomplete, state, attempts, error, report, started, finished, lineage, prev_key
		FROM series WHERE key=?`, key).Scan(&r.SeriesID, &r.Version, &r.Title, &r.Author, &r.Total, &r.Incomplete,
		&r.State, &r.Attempts, &r.Error, &r.Report, &st, &fin, &r.Lineage, &r.PrevKey)
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
// processing, attempts+1), with its lineage and titles, and returns the
// number of attempts so far.
func (s *Store) BeginSeries(ctx context.Context, r *Series) (int, error) {
	var attempts int
	lineage := r.Lineage
	if lineage == "" {
		lineage = r.Key
	}
	err := s.tx(ctx, func(t *sql.Tx) error {
		_, err := t.ExecContext(ctx, `INSERT INTO series(key, series_id, version, title, author, total, incomplete, state, attempts, started, lineage, prev_key)
			VALUES (?,?,?,?,?,?,?,?,1,?,?,?)
			ON CONFLICT(key) DO UPDATE SET state=excluded.state, attempts=attempts+1, started=excluded.started,
				incomplete=excluded.incomplete, total=excluded.total, lineage=excluded.lineage, prev_key=excluded.prev_key`,
			r.Key, r.SeriesID, r.Version, r.Title, r.Author, r.Total, r.Incomplete, SeriesProcessing, time.Now().UnixNano(), lineage, r.PrevKey)
		if err != nil {
			return err
		}
		for _, title := range r.Titles {
			if _, err := t.ExecContext(ctx, `INSERT INTO series_titles(author, title, key) VALUES (?,?,?) ON CONFLICT DO NOTHING`,
				strings.ToLower(r.Author), title, r.Key); err != nil {
				return err
			}
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

// PreviousVersion returns the latest processed series by author (its
// lineage and report included) that shares one of titles (normalised
// cover letter or patch titles) and has a version below version, or
// ErrNotFound: the version a new one follows.
func (s *Store) PreviousVersion(ctx context.Context, author string, titles []string, version int, key string) (*Series, error) {
	if len(titles) == 0 {
		return nil, ErrNotFound
	}
	args := []any{strings.ToLower(author)}
	for _, t := range titles {
		args = append(args, t)
	}
	args = append(args, version, key, SeriesDone)
	var prev string
	err := s.db.QueryRowContext(ctx, `SELECT s.key FROM series_titles t JOIN series s ON s.key=t.key
		WHERE t.author=? AND t.title IN (`+placeholders(len(titles))+`) AND s.version<? AND s.key<>? AND s.state=?
		ORDER BY s.version DESC, s.finished DESC LIMIT 1`, args...).Scan(&prev)
	if err == sql.ErrNoRows {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("previous version: %w", err)
	}
	return s.GetSeries(ctx, prev)
}

// CountSeries returns the number of recorded series by state.
func (s *Store) CountSeries(ctx context.Context) (map[string]int, error) {
	return s.countBy(ctx, "series", "state")
}
