package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Instances are the players' instances as the database records them: the
// reservation of one (its port, within the limits), its life, and the
// leases of the jobs one replica at a time runs.
type Instances struct{ db *DB }

// Instances returns the database's record of instances.
func (db *DB) Instances() Instances { return Instances{db} }

// The statuses of an instance's row.
const (
	InstanceStarting = "starting"
	InstanceRunning  = "running"
	InstanceStopping = "stopping"
	InstanceStopped  = "stopped"
)

// InstanceRow is an instance as recorded. UserID is "" for a shared one.
type InstanceRow struct {
	ID          string
	ChallengeID string
	UserID      string
	Engine      string // docker | swarm
	EngineID    string
	Host        string // the host players connect to, once it runs
	Port        int
	Status      string
	StartedAt   time.Time
	ExpiresAt   time.Time
	MaxUntil    time.Time // the latest an extension may reach
	StoppedAt   *time.Time
}

var instanceColumns = []string{"id", "challenge_id", "user_id", "engine", "engine_id", "host", "port", "status",
	"started_at", "expires_at", "max_until", "stopped_at"}

var selectInstances = "SELECT " + selectList(instanceColumns, "user_id") + " FROM instances "

func scanInstance(sc scanner) (InstanceRow, error) {
	var r InstanceRow
	var started, expires, until int64
	var stopped sql.NullInt64
	if err := sc.Scan(&r.ID, &r.ChallengeID, &r.UserID, &r.Engine, &r.EngineID, &r.Host, &r.Port, &r.Status,
		&started, &expires, &until, &stopped); err != nil {
		return r, fmt.Errorf("scan instance: %w", err)
	}
	r.StartedAt, r.ExpiresAt, r.MaxUntil, r.StoppedAt = fromMs(started), fromMs(expires), fromMs(until), fromNullMs(stopped)
	return r, nil
}

// InstanceLimits bound the reservations: per player, in all, and the ports
// instances are published on (From to To, both included).
type InstanceLimits struct {
	PerPlayer, Max int
	From, To       int
	// Avoid are ports of the range to pick only when no other is free:
	// ones the engine just said were taken (a port a removed container
	// held is released a moment later).
	Avoid []int
}

// instanceLockKey serialises reservations on PostgreSQL, as SQLite's
// single writer does: the limits are counts, read and kept in one go.
const instanceLockKey int64 = 0x666c6167_696e7374

// Reserve records r as starting, with a port of the range, unless the
// player (r.UserID) already has a live instance of the challenge, which it
// returns instead (existing true). Over the player's limit is Conflict;
// over the event's, or no port free, is Unavailable.
func (in Instances) Reserve(ctx context.Context, r InstanceRow, lim InstanceLimits) (out InstanceRow, existing bool, err error) {
	err = in.db.writeTx(ctx, func(tx *sqlTx) error {
		if tx.d.postgres() {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", instanceLockKey); err != nil {
				return err
			}
		}
		row := tx.QueryRowContext(ctx, selectInstances+"WHERE challenge_id = ? AND COALESCE(user_id, '') = ? AND stopped_at IS NULL",
			r.ChallengeID, r.UserID)
		if cur, err := scanInstance(row); err == nil {
			out, existing = cur, true
			return nil
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var mine, all int
		if err := tx.QueryRowContext(ctx, `SELECT
	(SELECT count(*) FROM instances WHERE stopped_at IS NULL AND user_id = ?),
	(SELECT count(*) FROM instances WHERE stopped_at IS NULL)`, r.UserID).Scan(&mine, &all); err != nil {
			return err
		}
		switch {
		case r.UserID != "" && lim.PerPlayer > 0 && mine >= lim.PerPlayer:
			return ctf.Errorf(ctf.Conflict, "you already run %d instances, the most one player may: stop one first", mine)
		case lim.Max > 0 && all >= lim.Max:
			e := ctf.Errorf(ctf.Unavailable, "the event runs as many instances as it can; try again in a minute")
			e.RetryAfter = time.Minute
			return e
		}
		port, err := freePort(ctx, tx, lim)
		if err != nil {
			return err
		}
		r.Port, r.Status = port, InstanceStarting
		var user any
		if r.UserID != "" {
			user = r.UserID
		}
		_, err = tx.ExecContext(ctx, insertSQL("instances", instanceColumns), r.ID, r.ChallengeID, user, r.Engine, r.EngineID,
			r.Host, r.Port, r.Status, ms(r.StartedAt), ms(r.ExpiresAt), ms(r.MaxUntil), nullMs(r.StoppedAt))
		if err != nil {
			return fmt.Errorf("reserve an instance: %w", err)
		}
		out = r
		return nil
	})
	return out, existing, err
}

// freePort picks a port of the range no live instance has, at random, so
// that replicas and restarts do not all try the same first.
func freePort(ctx context.Context, tx *sqlTx, lim InstanceLimits) (int, error) {
	used := map[int]bool{}
	err := eachRow(ctx, tx, "SELECT port FROM instances WHERE stopped_at IS NULL", func(sc scanner) error {
		var p int
		err := sc.Scan(&p)
		used[p] = true
		return err
	})
	if err != nil {
		return 0, err
	}
	n := lim.To - lim.From + 1
	if n <= 0 {
		return 0, ctf.Errorf(ctf.Unavailable, "no port range for instances")
	}
	start := rand.IntN(n)
	for _, avoid := range []bool{true, false} {
		for i := range n {
			if p := lim.From + (start+i)%n; !used[p] && !(avoid && slices.Contains(lim.Avoid, p)) {
				return p, nil
			}
		}
	}
	e := ctf.Errorf(ctf.Unavailable, "every instance port is taken; try again in a minute")
	e.RetryAfter = time.Minute
	return 0, e
}

// Started records where a starting instance runs.
func (in Instances) Started(ctx context.Context, id, engineID, host string) error {
	return in.update(ctx, "UPDATE instances SET status = ?, engine_id = ?, host = ? WHERE id = ? AND stopped_at IS NULL",
		InstanceRunning, engineID, host, id)
}

// Extend moves a live instance's expiry.
func (in Instances) Extend(ctx context.Context, id string, expires time.Time) error {
	return in.update(ctx, "UPDATE instances SET expires_at = ? WHERE id = ? AND stopped_at IS NULL", ms(expires), id)
}

// Stopping marks a live instance as being stopped.
func (in Instances) Stopping(ctx context.Context, id string) error {
	return in.update(ctx, "UPDATE instances SET status = ? WHERE id = ? AND stopped_at IS NULL", InstanceStopping, id)
}

// Stopped records that an instance is gone: its port is free again.
func (in Instances) Stopped(ctx context.Context, id string, at time.Time) error {
	return in.update(ctx, "UPDATE instances SET status = ?, stopped_at = ? WHERE id = ? AND stopped_at IS NULL",
		InstanceStopped, ms(at), id)
}

func (in Instances) update(ctx context.Context, query string, args ...any) error {
	return in.db.writeTx(ctx, func(tx *sqlTx) error {
		if _, err := tx.ExecContext(ctx, query, args...); err != nil {
			return fmt.Errorf("record an instance: %w", err)
		}
		return nil
	})
}

// Live returns the live instance of a player (userID "" for the shared
// one) and a challenge, if any.
func (in Instances) Live(ctx context.Context, challengeID, userID string) (InstanceRow, bool, error) {
	r, err := scanInstance(in.db.r.QueryRowContext(ctx, selectInstances+"WHERE challenge_id = ? AND COALESCE(user_id, '') = ? AND stopped_at IS NULL",
		challengeID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, err
}

// ByID returns an instance by id, live or not.
func (in Instances) ByID(ctx context.Context, id string) (InstanceRow, bool, error) {
	r, err := scanInstance(in.db.r.QueryRowContext(ctx, selectInstances+"WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, err
}

// AllLive returns every live instance, oldest first; with expiredBy not
// zero, only those whose expiry is at or before it.
func (in Instances) AllLive(ctx context.Context, expiredBy time.Time) ([]InstanceRow, error) {
	where, args := "WHERE stopped_at IS NULL", []any{}
	if !expiredBy.IsZero() {
		where, args = where+" AND expires_at <= ?", append(args, ms(expiredBy))
	}
	var out []InstanceRow
	err := eachRow(ctx, in.db.r, selectInstances+where+" ORDER BY started_at, id", func(sc scanner) error {
		r, err := scanInstance(sc)
		out = append(out, r)
		return err
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("read instances: %w", err)
	}
	return out, nil
}

// TakeLease takes or renews the lease called name for holder until until,
// unless another holder has it past now; it reports whether holder has it.
func (in Instances) TakeLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error) {
	var got string
	err := in.db.writeTx(ctx, func(tx *sqlTx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO leases (name, holder, until) VALUES (?, ?, ?)
	ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
	WHERE leases.holder = excluded.holder OR leases.until <= ?
	RETURNING holder`, name, holder, ms(until), ms(now)).Scan(&got)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("take the lease %s: %w", name, err)
	}
	return got == holder, nil
}
