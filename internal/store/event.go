package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The event's settings, its announcements and the live stream's log.

func queryEvent(ctx context.Context, q querier) (ctf.Event, error) {
	var e ctf.Event
	var start, end, freeze, unfrozen sql.NullInt64
	err := q.QueryRowContext(ctx, selectEvent).Scan(&e.Name, &start, &end, &freeze, &e.UnfreezeAtEnd, &unfrozen, &e.Practice, &e.FlagFormat)
	if errors.Is(err, sql.ErrNoRows) {
		return ctf.Event{}, nil // never set: open, never ends, never freezes
	}
	if err != nil {
		return e, fmt.Errorf("read the event's settings: %w", err)
	}
	e.Start, e.End, e.Freeze, e.Unfrozen = fromNullMs(start), fromNullMs(end), fromNullMs(freeze), fromNullMs(unfrozen)
	return e, nil
}

// EventSettings reads the event's settings.
func (db *DB) EventSettings(ctx context.Context) (ctf.Event, error) { return queryEvent(ctx, db.r) }

// PutEvent replaces the event's settings. The moves of the clock they
// cause (an unfreeze) reach the stream as every replica notices them.
func (ct Content) PutEvent(ctx context.Context, e ctf.Event, audit *ctf.AuditEntry) ([]int64, error) {
	return ct.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		if err := putEvent(ctx, tx, e); err != nil {
			return nil, err
		}
		return []ChangeRef{{Kind: ChangeEvent, Entity: "1"}}, nil
	})
}

func putEvent(ctx context.Context, tx *sqlTx, e ctf.Event) error {
	_, err := tx.ExecContext(ctx, putEventSQL, eventValues(e)...)
	if err != nil {
		return fmt.Errorf("save the event's settings: %w", err)
	}
	return nil
}

func queryAnnouncements(ctx context.Context, q querier, where string, args ...any) ([]ctf.Announcement, error) {
	var out []ctf.Announcement
	err := eachRow(ctx, q, selectAnnouncements+where+" ORDER BY created_at, id", func(sc scanner) error {
		var a ctf.Announcement
		var at int64
		err := sc.Scan(&a.ID, &a.Title, &a.Body, &a.ChallengeID, &a.AuthorID, &at)
		a.CreatedAt = fromMs(at)
		out = append(out, a)
		return err
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("read announcements: %w", err)
	}
	return out, nil
}

// PostAnnouncement records an announcement and its event in the live
// stream, in one transaction.
func (ct Content) PostAnnouncement(ctx context.Context, a ctf.Announcement, audit *ctf.AuditEntry) ([]int64, error) {
	return ct.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		if _, err := tx.ExecContext(ctx, postAnnouncementSQL, announcementValues(a)...); err != nil {
			return nil, fmt.Errorf("save announcement: %w", err)
		}
		if _, err := appendStream(ctx, tx, StreamRow{Kind: ctf.StreamAnnouncement, Ref: a.ID, ChallengeID: a.ChallengeID, At: a.CreatedAt}); err != nil {
			return nil, err
		}
		return []ChangeRef{{Kind: ChangeAnnounce, Entity: a.ID}}, nil
	})
}

// StreamRow is a row of the live stream's log: what happened, naming the
// user, challenge or other entity (Ref: a solve's or an announcement's id)
// it happened to. Key, when set, makes the row unique in the cluster.
type StreamRow struct {
	Seq         int64
	Kind        ctf.StreamKind
	Key         string
	UserID      string
	ChallengeID string
	Ref         string
	At          time.Time
}

// appendStream appends a row to the stream in the caller's transaction,
// taking its number from the counter as late as it can: the counter's row
// stays locked until the commit, so numbers are dense and in commit order.
func appendStream(ctx context.Context, tx *sqlTx, r StreamRow) (int64, error) {
	return appendStreams(ctx, tx, []StreamRow{r})
}

// appendStreams appends rows to the stream as appendStream does one, under
// numbers taken from the counter at once (a batch of solves holds the
// counter once, for one commit), and returns the last number.
func appendStreams(ctx context.Context, tx *sqlTx, rows []StreamRow) (int64, error) {
	if len(rows) == 0 {
		return 0, nil
	}
	var last int64
	if err := tx.QueryRowContext(ctx, "UPDATE counters SET value = value + ? WHERE name = 'stream' RETURNING value", len(rows)).Scan(&last); err != nil {
		return 0, fmt.Errorf("number stream events: %w", err)
	}
	for i, r := range rows {
		if _, err := tx.ExecContext(ctx, `INSERT INTO stream (seq, kind, key, user_id, challenge_id, ref, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			last-int64(len(rows)-1-i), r.Kind, nullString(r.Key), nullString(r.UserID), nullString(r.ChallengeID), r.Ref, ms(r.At)); err != nil {
			if isUniqueViolation(err) {
				return 0, errStreamDuplicate
			}
			return 0, fmt.Errorf("record a stream event: %w", err)
		}
	}
	return last, nil
}

var errStreamDuplicate = errors.New("stream event recorded already")

// AppendStreamOnce records an event that every replica notices (the
// start, a release) once in the cluster: it reports false when a row with
// its key exists already.
func (db *DB) AppendStreamOnce(ctx context.Context, r StreamRow) (bool, error) {
	err := db.writeTx(ctx, func(tx *sqlTx) error {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM stream WHERE key = ?", r.Key).Scan(&n); err != nil {
			return fmt.Errorf("look up stream event %s: %w", r.Key, err)
		}
		if n > 0 {
			return errStreamDuplicate
		}
		if _, err := appendStream(ctx, tx, r); err != nil {
			return err
		}
		return notifyChange(ctx, tx)
	})
	if errors.Is(err, errStreamDuplicate) {
		return false, nil
	}
	return err == nil, err
}

func streamHead(ctx context.Context, q querier) (int64, error) {
	var n int64
	if err := q.QueryRowContext(ctx, "SELECT value FROM counters WHERE name = 'stream'").Scan(&n); err != nil {
		return 0, fmt.Errorf("read the stream's head: %w", err)
	}
	return n, nil
}

// StreamAfter reads the stream's rows after the number given, oldest
// first, at most limit of them (0: all).
func (db *DB) StreamAfter(ctx context.Context, after int64, limit int) ([]StreamRow, error) {
	q := `SELECT seq, kind, COALESCE(key, ''), COALESCE(user_id, ''), COALESCE(challenge_id, ''), ref, at FROM stream WHERE seq > ? ORDER BY seq`
	args := []any{after}
	if limit > 0 {
		q += " LIMIT ?"
		args = append(args, limit)
	}
	var out []StreamRow
	err := eachRow(ctx, db.r, q, func(sc scanner) error {
		var r StreamRow
		var at int64
		err := sc.Scan(&r.Seq, &r.Kind, &r.Key, &r.UserID, &r.ChallengeID, &r.Ref, &at)
		r.At = fromMs(at)
		out = append(out, r)
		return err
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("read the stream: %w", err)
	}
	return out, nil
}
