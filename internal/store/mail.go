package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Mail is the outbox of email, and the password reset tokens that cause
// most of it. A message is written in the same transaction as what causes
// it, so a crash loses none; every replica's worker claims due messages
// (a lease in claimed_until, taken with FOR UPDATE SKIP LOCKED on
// PostgreSQL), as webhook deliveries are, so one replica sends each.
type Mail struct{ db *DB }

// Mail returns the database's mail outbox.
func (db *DB) Mail() Mail { return Mail{db} }

// Mail statuses.
const (
	MailPending = "pending"
	MailSent    = "sent"
	MailFailed  = "failed"
)

// OutMail is a message to put in the outbox.
type OutMail struct {
	Kind              string // what it is for ("password-reset"), for the log
	To                string
	Subject           string
	Text, HTML        string
	GiveUpAt          time.Time // retried until then, then failed
	CreatedAt, NextAt time.Time // NextAt zero: at once
}

func enqueueMail(ctx context.Context, tx *sqlTx, m OutMail) error {
	next := m.NextAt
	if next.IsZero() {
		next = m.CreatedAt
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO mail_outbox (kind, to_addr, subject, text_body, html_body, next_at, give_up_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, m.Kind, m.To, m.Subject, m.Text, m.HTML, ms(next), ms(m.GiveUpAt), ms(m.CreatedAt))
	if err != nil {
		return fmt.Errorf("put a message in the outbox: %w", err)
	}
	return nil
}

// Enqueue puts a message in the outbox on its own (a message that no other
// write causes).
func (m Mail) Enqueue(ctx context.Context, out OutMail) error {
	return m.db.writeTx(ctx, func(tx *sqlTx) error { return enqueueMail(ctx, tx, out) })
}

// ClaimedMail is a message claimed for sending.
type ClaimedMail struct {
	Seq       int64
	Kind      string
	To        string
	Subject   string
	Text      string
	HTML      string
	Attempts  int // tries before this one
	GiveUpAt  time.Time
	CreatedAt time.Time
}

// ClaimMail claims up to limit pending messages due at now, oldest due
// first, for lease: no other replica claims them until then or until
// their try is recorded.
func (m Mail) ClaimMail(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ClaimedMail, error) {
	at := ms(now)
	// Most rounds find nothing due: a read answers without the write lock.
	var due int
	err := m.db.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM mail_outbox
		WHERE status = 'pending' AND next_at <= ? AND claimed_until < ? LIMIT 1) AS due`, at, at).Scan(&due)
	if err != nil || due == 0 {
		if err != nil {
			err = fmt.Errorf("look for due mail: %w", err)
		}
		return nil, err
	}
	var out []ClaimedMail
	err = m.db.writeTx(ctx, func(tx *sqlTx) error {
		lock := ""
		if tx.d.postgres() {
			lock = " FOR UPDATE SKIP LOCKED"
		}
		return eachRow(ctx, tx, `UPDATE mail_outbox SET claimed_until = ? WHERE seq IN (
			SELECT o.seq FROM mail_outbox o WHERE o.status = 'pending' AND o.next_at <= ? AND o.claimed_until < ?
			ORDER BY o.next_at, o.seq LIMIT ?`+lock+`)
			RETURNING seq, kind, to_addr, subject, text_body, html_body, attempts, give_up_at, created_at`, func(sc scanner) error {
			var c ClaimedMail
			var giveUp, created int64
			err := sc.Scan(&c.Seq, &c.Kind, &c.To, &c.Subject, &c.Text, &c.HTML, &c.Attempts, &giveUp, &created)
			c.GiveUpAt, c.CreatedAt = fromMs(giveUp), fromMs(created)
			out = append(out, c)
			return err
		}, ms(now.Add(lease)), at, at, limit)
	})
	if err != nil {
		return nil, fmt.Errorf("claim mail: %w", err)
	}
	return out, nil
}

// MailOutcome is what a try leaves a message in: sent, failed, or pending
// again, due at NextAt; Error says why a try failed.
type MailOutcome struct {
	Status string
	NextAt time.Time
	Error  string
}

// RecordMailTry moves a claimed message on after a try, releasing its
// claim.
func (m Mail) RecordMailTry(ctx context.Context, seq int64, at time.Time, o MailOutcome) error {
	var sent any
	if o.Status == MailSent {
		sent = ms(at)
	}
	_, err := m.db.w.ExecContext(ctx, `UPDATE mail_outbox SET status = ?, attempts = attempts + 1, next_at = ?, claimed_until = 0,
		last_error = ?, sent_at = ? WHERE seq = ? AND status = 'pending'`, o.Status, ms(o.NextAt), o.Error, sent, seq)
	if err != nil {
		return fmt.Errorf("record a try of message %d: %w", seq, err)
	}
	return nil
}

// QueuedMail is a message of the outbox as the log reads it.
type QueuedMail struct {
	Seq               int64
	Kind, To, Subject string
	Status            string
	Attempts          int
	LastError         string
	CreatedAt, NextAt time.Time
	SentAt            *time.Time
	Text, HTML        string
}

// Outbox lists the newest messages, newest first.
func (m Mail) Outbox(ctx context.Context, limit int) ([]QueuedMail, error) {
	out := []QueuedMail{}
	err := eachRow(ctx, m.db.r, `SELECT seq, kind, to_addr, subject, status, attempts, last_error, created_at, next_at, sent_at, text_body, html_body
		FROM mail_outbox ORDER BY seq DESC LIMIT ?`, func(sc scanner) error {
		var q QueuedMail
		var created, next int64
		var sent sql.NullInt64
		err := sc.Scan(&q.Seq, &q.Kind, &q.To, &q.Subject, &q.Status, &q.Attempts, &q.LastError, &created, &next, &sent, &q.Text, &q.HTML)
		q.CreatedAt, q.NextAt, q.SentAt = fromMs(created), fromMs(next), fromNullMs(sent)
		out = append(out, q)
		return err
	}, limit)
	if err != nil {
		return nil, fmt.Errorf("read the outbox: %w", err)
	}
	return out, nil
}

// PasswordReset is a reset token as stored: the hash of its secret.
type PasswordReset struct {
	TokenHash string
	UserID    string
	Origin    string // email, admin or operator
	CreatedAt time.Time
	ExpiresAt time.Time
}

// CreatePasswordReset records a reset token and, in the same transaction,
// the message that carries it (nil: none, the link is shown to an admin)
// and the audit entry (nil: none).
func (a Accounts) CreatePasswordReset(ctx context.Context, r PasswordReset, msg *OutMail, audit *ctf.AuditEntry) error {
	_, err := a.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM users WHERE id = ?", r.UserID).Scan(&n); err != nil {
			return nil, fmt.Errorf("save a password reset: %w", err)
		}
		if n == 0 {
			return nil, ctf.Errorf(ctf.NotFound, "no such user")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO password_resets (token_hash, user_id, origin, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
			r.TokenHash, r.UserID, r.Origin, ms(r.CreatedAt), ms(r.ExpiresAt)); err != nil {
			return nil, fmt.Errorf("save a password reset: %w", err)
		}
		if msg != nil {
			return nil, enqueueMail(ctx, tx, *msg)
		}
		return nil, nil // no replica holds reset tokens in memory
	})
	return err
}

// errBadReset names neither an unknown, a used nor an expired token: the
// answer is the same for each.
var errBadReset = ctf.Errorf(ctf.Invalid, "this reset link is not valid: it was used, it expired (links last 30 minutes) or a newer one replaced it; ask for a new one")

// PasswordResetUser returns the user of a token that is unused and valid
// at now; Invalid otherwise.
func (a Accounts) PasswordResetUser(ctx context.Context, tokenHash string, now time.Time) (string, error) {
	var userID string
	err := a.db.r.QueryRowContext(ctx, `SELECT user_id FROM password_resets WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?`,
		tokenHash, ms(now)).Scan(&userID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", errBadReset
	}
	if err != nil {
		return "", fmt.Errorf("read a password reset: %w", err)
	}
	return userID, nil
}

// ResetPassword uses a token (once: of two at the same time, one wins),
// sets the user's password hash, ends every session of the user and
// spends every other token of theirs, in one transaction.
func (a Accounts) ResetPassword(ctx context.Context, tokenHash, passwordHash string, now time.Time, audit *ctf.AuditEntry) (ctf.User, []int64, error) {
	var u ctf.User
	seqs, err := a.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		userID, err := spendToken(ctx, tx, "password_resets", tokenHash, now)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errBadReset
		}
		if err != nil {
			return nil, fmt.Errorf("use a password reset: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL", ms(now), userID); err != nil {
			return nil, fmt.Errorf("spend a user's other password resets: %w", err)
		}
		u, err = scanUser(tx.QueryRowContext(ctx, "UPDATE users SET password_hash = ? WHERE id = ? RETURNING "+userColumns, passwordHash, userID))
		if err != nil {
			return nil, fmt.Errorf("set a password: %w", err)
		}
		if audit != nil {
			audit.Target = u.Username
		}
		// Every session: whoever held one may have held it by the old
		// password, and the person resetting holds none.
		return a.revokeOtherSessions(ctx, tx, userID, "")
	})
	return u, seqs, err
}
