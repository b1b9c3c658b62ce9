package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Webhooks: the targets admins configure, the outbox of deliveries made
// from the live stream once per cluster, and the log of every try.
//
// Exactly once per cluster: ProduceDeliveries runs on every replica, but
// under the lock of counters('webhooks') (the cursor: the last stream
// number turned into deliveries), and each delivery is unique per target
// and stream number, so a second replica finds the work done. A delivery
// is then claimed by one replica at a time (a lease in claimed_until,
// taken with FOR UPDATE SKIP LOCKED on PostgreSQL) until it is delivered
// or given up.

// Delivery statuses.
const (
	DeliveryPending   = ctf.DeliveryPending
	DeliveryDelivered = ctf.DeliveryDelivered
	DeliveryFailed    = ctf.DeliveryFailed
)

// Webhook is a target as stored, with the counts of its deliveries by
// status when read by Webhooks.
type Webhook struct {
	ID, Name    string
	Kind        ctf.WebhookKind
	URL, Secret string
	Events      []ctf.WebhookEvent
	Enabled     bool
	CreatedAt   time.Time
	// AfterSeq is the live stream's number when the webhook was created:
	// it gets the events after it, not those before.
	AfterSeq                   int64
	Pending, Delivered, Failed int
}

const webhookColumns = "id, name, kind, url, secret, events, enabled, created_at, after_seq"

func queryWebhooks(ctx context.Context, q querier, where string, args ...any) ([]Webhook, error) {
	out := []Webhook{}
	err := eachRow(ctx, q, "SELECT "+webhookColumns+" FROM webhooks "+where+" ORDER BY created_at, id", func(sc scanner) error {
		var w Webhook
		var events string
		var at int64
		if err := sc.Scan(&w.ID, &w.Name, &w.Kind, &w.URL, &w.Secret, &events, &w.Enabled, &at, &w.AfterSeq); err != nil {
			return err
		}
		w.CreatedAt = fromMs(at)
		if err := jsonUnmarshalStrings(events, &w.Events); err != nil {
			return fmt.Errorf("webhook %s: events: %w", w.ID, err)
		}
		out = append(out, w)
		return nil
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("read webhooks: %w", err)
	}
	return out, nil
}

// Webhooks lists the webhooks, oldest first, with their deliveries counted.
func (h Hooks) Webhooks(ctx context.Context) ([]Webhook, error) {
	hooks, err := queryWebhooks(ctx, h.db.r, "")
	if err != nil {
		return nil, err
	}
	counts := map[string]map[ctf.DeliveryStatus]int{}
	err = eachRow(ctx, h.db.r, "SELECT webhook_id, status, count(*) FROM webhook_deliveries GROUP BY webhook_id, status", func(sc scanner) error {
		var id string
		var status ctf.DeliveryStatus
		var n int
		err := sc.Scan(&id, &status, &n)
		if counts[id] == nil {
			counts[id] = map[ctf.DeliveryStatus]int{}
		}
		counts[id][status] = n
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("count webhook deliveries: %w", err)
	}
	for i := range hooks {
		c := counts[hooks[i].ID]
		hooks[i].Pending, hooks[i].Delivered, hooks[i].Failed = c[DeliveryPending], c[DeliveryDelivered], c[DeliveryFailed]
	}
	return hooks, nil
}

// Webhook reads one webhook (without counts); NotFound when there is none.
func (h Hooks) Webhook(ctx context.Context, id string) (Webhook, error) {
	hooks, err := queryWebhooks(ctx, h.db.r, "WHERE id = ?", id)
	if err != nil {
		return Webhook{}, err
	}
	if len(hooks) == 0 {
		return Webhook{}, errNoWebhook
	}
	return hooks[0], nil
}

var errNoWebhook = ctf.Errorf(ctf.NotFound, "no such webhook")

// CreateWebhook records a new webhook. Its AfterSeq is set here, in the
// same transaction, to the stream's head: it gets what happens next.
func (h Hooks) CreateWebhook(ctx context.Context, w Webhook, audit *ctf.AuditEntry) (Webhook, error) {
	_, err := h.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		var err error
		if w.AfterSeq, err = streamHead(ctx, tx); err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, createWebhookSQL, webhookValues(w)...); err != nil {
			return nil, fmt.Errorf("save webhook: %w", err)
		}
		return nil, nil // no replica holds webhooks in memory
	})
	return w, err
}

// SetWebhookEnabled turns a webhook on or off; a webhook turned off gets
// no new deliveries and its pending ones wait.
func (h Hooks) SetWebhookEnabled(ctx context.Context, id string, enabled bool, audit *ctf.AuditEntry) error {
	return h.changeWebhook(ctx, "UPDATE webhooks SET enabled = ? WHERE id = ?", audit, enabled, id)
}

// DeleteWebhook deletes a webhook with its deliveries and their log.
func (h Hooks) DeleteWebhook(ctx context.Context, id string, audit *ctf.AuditEntry) error {
	return h.changeWebhook(ctx, "DELETE FROM webhooks WHERE id = ?", audit, id)
}

func (h Hooks) changeWebhook(ctx context.Context, query string, audit *ctf.AuditEntry, args ...any) error {
	_, err := h.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return nil, fmt.Errorf("change webhook: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return nil, errNoWebhook
		}
		return nil, nil
	})
	return err
}

// NewDelivery is a delivery to make: an event of the stream for a webhook,
// its body the event's generic JSON.
type NewDelivery struct {
	WebhookID string
	StreamSeq int64
	Event     ctf.WebhookEvent
	Body      string
}

// ProduceDeliveries turns the stream's events after the webhooks' cursor
// and up to upTo into deliveries, once in the cluster. build is given the
// cursor and the enabled webhooks, and returns the deliveries to make and
// the stream number it covered (at most upTo); it runs inside the
// transaction that holds the cursor's lock, so it must not write. It
// returns how many deliveries were made.
func (h Hooks) ProduceDeliveries(ctx context.Context, upTo int64, build func(after int64, hooks []Webhook) ([]NewDelivery, int64, error)) (int, error) {
	// Most rounds find nothing to do: a read answers that without taking
	// the write lock.
	cursor, err := webhookCursor(ctx, h.db.r, "")
	if err != nil || cursor >= upTo {
		return 0, err
	}
	made := 0
	err = h.db.writeTx(ctx, func(tx *sqlTx) error {
		// SQLite's write transaction is exclusive already (BEGIN
		// IMMEDIATE); PostgreSQL's replicas queue on the cursor's row.
		lock := ""
		if tx.d.postgres() {
			lock = " FOR UPDATE"
		}
		after, err := webhookCursor(ctx, tx, lock)
		if err != nil || after >= upTo {
			return err
		}
		hooks, err := queryWebhooks(ctx, tx, "WHERE enabled = ?", true)
		if err != nil {
			return err
		}
		ds, through, err := build(after, hooks)
		if err != nil {
			return err
		}
		if through <= after {
			return nil
		}
		now := ms(h.db.now())
		for _, d := range ds {
			res, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (webhook_id, stream_seq, kind, body, next_at, created_at)
				VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (webhook_id, stream_seq) DO NOTHING`, d.WebhookID, d.StreamSeq, d.Event, d.Body, now, now)
			if err != nil {
				return fmt.Errorf("make a webhook delivery: %w", err)
			}
			n, _ := res.RowsAffected()
			made += int(n)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE counters SET value = ? WHERE name = 'webhooks'", through); err != nil {
			return fmt.Errorf("advance the webhooks' cursor: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return made, nil
}

func webhookCursor(ctx context.Context, q querier, lock string) (int64, error) {
	var n int64
	if err := q.QueryRowContext(ctx, "SELECT value FROM counters WHERE name = 'webhooks'"+lock).Scan(&n); err != nil {
		return 0, fmt.Errorf("read the webhooks' cursor: %w", err)
	}
	return n, nil
}

// Claimed is a delivery claimed for sending, with its target.
type Claimed struct {
	Seq       int64
	StreamSeq int64
	Event     ctf.WebhookEvent
	Body      string
	Attempts  int // tries before this one
	CreatedAt time.Time
	Webhook   Webhook
}

// ClaimDeliveries claims up to limit pending deliveries that are due at
// now, of enabled webhooks, oldest due first, for lease: no other replica
// claims them until then (or until their try is recorded).
func (h Hooks) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Claimed, error) {
	// Most rounds find nothing due: a read answers that without taking
	// the write lock (SQLite's is the whole database's).
	var due int
	err := h.db.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries
		WHERE status = 'pending' AND next_at <= ? AND claimed_until < ?
		AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = webhook_id AND w.enabled = ?) LIMIT 1) AS due`, ms(now), ms(now), true).Scan(&due)
	if err != nil || due == 0 {
		return nil, err
	}
	var out []Claimed
	err = h.db.writeTx(ctx, func(tx *sqlTx) error {
		// SKIP LOCKED: replicas claiming at once take different rows
		// instead of queueing; SQLite's writer is alone anyway.
		lock := ""
		if tx.d.postgres() {
			lock = " FOR UPDATE SKIP LOCKED"
		}
		at := ms(now)
		err := eachRow(ctx, tx, `UPDATE webhook_deliveries SET claimed_until = ? WHERE seq IN (
			SELECT d.seq FROM webhook_deliveries d WHERE d.status = 'pending' AND d.next_at <= ? AND d.claimed_until < ?
			AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.enabled = ?)
			ORDER BY d.next_at, d.seq LIMIT ?`+lock+`)
			RETURNING seq, stream_seq, kind, body, attempts, created_at, webhook_id`, func(sc scanner) error {
			var c Claimed
			var created int64
			err := sc.Scan(&c.Seq, &c.StreamSeq, &c.Event, &c.Body, &c.Attempts, &created, &c.Webhook.ID)
			c.CreatedAt = fromMs(created)
			out = append(out, c)
			return err
		}, ms(now.Add(lease)), at, at, true, limit)
		if err != nil || len(out) == 0 {
			return err
		}
		ids := make([]any, 0, len(out))
		for _, c := range out {
			ids = append(ids, c.Webhook.ID)
		}
		hooks, err := queryWebhooks(ctx, tx, "WHERE id IN ("+marks(len(ids))+")", ids...)
		if err != nil {
			return err
		}
		byID := map[string]Webhook{}
		for _, w := range hooks {
			byID[w.ID] = w
		}
		for i := range out {
			out[i].Webhook = byID[out[i].Webhook.ID]
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim webhook deliveries: %w", err)
	}
	return out, nil
}

// DeliveryTry is one try of a delivery.
type DeliveryTry struct {
	At         time.Time
	StatusCode int    // 0: no answer
	Error      string // why it failed, when it did
	Duration   time.Duration
	NextAt     *time.Time // the retry it scheduled, if any (read only: Outcome sets it)
}

// Outcome is what a try leaves a delivery in: Status delivered, failed,
// or pending again, due at NextAt.
type Outcome struct {
	Status ctf.DeliveryStatus
	NextAt time.Time
}

// RecordAttempt logs a try of a claimed delivery and moves the delivery on
// (releasing its claim), in one transaction. A delivery deleted meanwhile
// (with its webhook) is left alone.
func (h Hooks) RecordAttempt(ctx context.Context, delivery int64, a DeliveryTry, o Outcome) error {
	err := h.db.writeTx(ctx, func(tx *sqlTx) error {
		var delivered any
		if o.Status == DeliveryDelivered {
			delivered = ms(a.At.Add(a.Duration))
		}
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_at = ?, claimed_until = 0,
			delivered_at = ? WHERE seq = ? AND status = 'pending'`, o.Status, ms(o.NextAt), delivered, delivery)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		var next any
		if o.Status == DeliveryPending {
			next = ms(o.NextAt)
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO webhook_attempts (delivery, at, status_code, error, duration_ms, next_at) VALUES (?, ?, ?, ?, ?, ?)",
			delivery, ms(a.At), a.StatusCode, a.Error, a.Duration.Milliseconds(), next)
		return err
	})
	if err != nil {
		return fmt.Errorf("record a try of webhook delivery %d: %w", delivery, err)
	}
	return nil
}

// Delivery is a delivery with its tries, as the log shows it.
type Delivery struct {
	Seq         int64
	StreamSeq   int64
	Event       ctf.WebhookEvent
	Body        string
	Status      ctf.DeliveryStatus
	Attempts    int
	NextAt      time.Time // the next try, when pending
	CreatedAt   time.Time
	DeliveredAt *time.Time
	Log         []DeliveryTry // oldest first
}

// Deliveries returns a webhook's newest deliveries, newest first, each
// with its tries.
func (h Hooks) Deliveries(ctx context.Context, webhookID string, limit int) ([]Delivery, error) {
	out := []Delivery{}
	idx := map[int64]int{}
	err := eachRow(ctx, h.db.r, `SELECT seq, stream_seq, kind, body, status, attempts, next_at, created_at, delivered_at
		FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?`, func(sc scanner) error {
		var d Delivery
		var next, created int64
		var delivered sql.NullInt64
		err := sc.Scan(&d.Seq, &d.StreamSeq, &d.Event, &d.Body, &d.Status, &d.Attempts, &next, &created, &delivered)
		d.NextAt, d.CreatedAt, d.DeliveredAt = fromMs(next), fromMs(created), fromNullMs(delivered)
		idx[d.Seq] = len(out)
		out = append(out, d)
		return err
	}, webhookID, limit)
	if err != nil {
		return nil, fmt.Errorf("read webhook deliveries: %w", err)
	}
	if len(out) == 0 {
		return out, nil
	}
	seqs := make([]any, 0, len(out))
	for _, d := range out {
		seqs = append(seqs, d.Seq)
	}
	err = eachRow(ctx, h.db.r, `SELECT delivery, at, status_code, error, duration_ms, next_at FROM webhook_attempts
		WHERE delivery IN (`+marks(len(seqs))+`) ORDER BY seq`, func(sc scanner) error {
		var seq, at, dur int64
		var next sql.NullInt64
		var a DeliveryTry
		err := sc.Scan(&seq, &at, &a.StatusCode, &a.Error, &dur, &next)
		a.At, a.Duration, a.NextAt = fromMs(at), time.Duration(dur)*time.Millisecond, fromNullMs(next)
		if i, ok := idx[seq]; ok {
			out[i].Log = append(out[i].Log, a)
		}
		return err
	}, seqs...)
	if err != nil {
		return nil, fmt.Errorf("read webhook attempts: %w", err)
	}
	return out, nil
}
