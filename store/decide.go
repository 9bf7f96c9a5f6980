package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
)

// Held is a held (pending) message as the scheduler assembled it into a
// series.
type Held struct {
	// MessageID identifies the message.
	MessageID string
	// Refs are the messages a patch or cover letter (not a reply) refers
	// to (In-Reply-To, References); empty for other mail. Such a message
	// is a late part of a processed series of the same Version that holds
	// one of them.
	Refs []string
	// Version is the patch version of the message's subject.
	Version int
}

// Decision is what DecideSeries made of a series the caller assembled.
// When both lists are empty every member was still pending and no
// processed series claims them: the caller hands the series to a worker.
type Decision struct {
	// Gone are members that are no longer pending (a worker finished them,
	// or another decision marked them) since the caller read them: its
	// view is stale, nothing was decided, and it should forget them and
	// assemble the rest again.
	Gone []string
	// Late maps processed series keys to the members now marked late for
	// them. When only some members are late, the others stay pending, to
	// be assembled again without them.
	Late map[string][]string
}

// Run reports whether the series is to be analysed.
func (d *Decision) Run() bool { return len(d.Gone) == 0 && len(d.Late) == 0 }

// DecideSeries decides, in one transaction, what becomes of a series of
// held messages that is ready to run: the decision is made from the
// store's current state, never from the caller's copy of it.
//
//   - Any member no longer pending: nothing is decided (Decision.Gone).
//   - The series key is already done or failed: every member is late.
//   - A member patch refers to a message of a processed series with its
//     version: that member is late (the rule the ingest applies to a part
//     arriving after its series was processed, applied again here because
//     the series may have finished after the part arrived).
//   - Otherwise the series is to run (Decision.Run).
func (s *Store) DecideSeries(ctx context.Context, key string, members []Held) (*Decision, error) {
	dec := &Decision{}
	err := s.tx(ctx, func(t *sql.Tx) error {
		*dec = Decision{}
		for _, m := range members {
			var status string
			err := t.QueryRowContext(ctx, `SELECT status FROM messages WHERE message_id=?`, m.MessageID).Scan(&status)
			if err != nil && err != sql.ErrNoRows {
				return fmt.Errorf("message %s: %w", m.MessageID, err)
			}
			if status != StatusPending {
				dec.Gone = append(dec.Gone, m.MessageID)
			}
		}
		if len(dec.Gone) > 0 {
			return nil
		}
		var state string
		err := t.QueryRowContext(ctx, `SELECT state FROM series WHERE key=?`, key).Scan(&state)
		if err != nil && err != sql.ErrNoRows {
			return fmt.Errorf("series %s: %w", key, err)
		}
		if state == SeriesDone || state == SeriesFailed {
			ids := make([]string, len(members))
			for i, m := range members {
				ids[i] = m.MessageID
			}
			dec.Late = map[string][]string{key: ids}
			return setStatus(ctx, t, StatusLate, "series "+key+" already processed", key, ids)
		}
		of := t.StmtContext(ctx, s.seriesOfMsg)
		for _, m := range members {
			done, err := processedSeries(ctx, of, m.Refs)
			if err != nil {
				return err
			}
			for _, k := range sortedKeys(done) {
				if done[k] != m.Version {
					continue
				}
				if dec.Late == nil {
					dec.Late = map[string][]string{}
				}
				dec.Late[k] = append(dec.Late[k], m.MessageID)
				if err := setStatus(ctx, t, StatusLate, "part of series "+k+", already processed", k, []string{m.MessageID}); err != nil {
					return err
				}
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decide series %s: %w", key, err)
	}
	return dec, nil
}

// ExpireHeld marks the given messages expired, in one transaction, if
// they are still pending; it returns those it expired and those that were
// no longer pending (gone).
func (s *Store) ExpireHeld(ctx context.Context, reason string, ids []string) (expired, gone []string, err error) {
	err = s.tx(ctx, func(t *sql.Tx) error {
		expired, gone = nil, nil
		for _, id := range ids {
			res, err := t.ExecContext(ctx, `UPDATE messages SET status=?, reason=?, series_key='', raw=NULL
				WHERE message_id=? AND status=?`, StatusExpired, reason, id, StatusPending)
			if err != nil {
				return fmt.Errorf("message %s: %w", id, err)
			}
			if n, _ := res.RowsAffected(); n == 1 {
				expired = append(expired, id)
			} else {
				gone = append(gone, id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("expire held messages: %w", err)
	}
	return expired, gone, nil
}

// processedSeries returns the keys and versions of the done or failed
// series that hold any of ids (the seriesOfMsg statement).
func processedSeries(ctx context.Context, of *sql.Stmt, ids []string) (map[string]int, error) {
	out := map[string]int{}
	for _, id := range ids {
		if id == "" {
			continue
		}
		if err := func() error {
			rows, err := of.QueryContext(ctx, id)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var k string
				var v int
				if err := rows.Scan(&k, &v); err != nil {
					return err
				}
				out[k] = v
			}
			return rows.Err()
		}(); err != nil {
			return nil, fmt.Errorf("series of %s: %w", id, err)
		}
	}
	return out, nil
}

// sortedKeys returns the keys of m in order (a decision must not depend
// on map order).
func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
