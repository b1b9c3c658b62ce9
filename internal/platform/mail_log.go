package platform

import (
	"context"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// MailEntry is a message of the outbox as an organiser sees it: to whom,
// what, and whether it went, never its text (a reset or confirmation
// message carries a one-time link that is its recipient's alone).
type MailEntry struct {
	Seq       int64
	Kind      string // password-reset, email-verification
	To        string
	Subject   string
	Status    string // pending, sent, failed (given up)
	Attempts  int
	LastError string
	CreatedAt time.Time
	NextAt    time.Time // a pending message's next try
	SentAt    *time.Time
}

// MailLogSize is how many of the newest messages MailLog lists.
const MailLogSize = 200

// MailLog lists the outbox's newest messages, newest first, for admins:
// a player who says the reset link never came can be answered (sent, still
// retrying and why, or given up), whether mail is configured or not.
func (s *Admin) MailLog(ctx context.Context, v ctf.Viewer) ([]MailEntry, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	box, err := s.accounts.db.Outbox(ctx, MailLogSize)
	if err != nil {
		return nil, err
	}
	out := make([]MailEntry, len(box))
	for i, m := range box {
		out[i] = MailEntry{Seq: m.Seq, Kind: m.Kind, To: m.To, Subject: m.Subject, Status: m.Status, Attempts: m.Attempts,
			LastError: m.LastError, CreatedAt: m.CreatedAt, NextAt: m.NextAt, SentAt: m.SentAt}
	}
	return out, nil
}

// MailConfigured says whether the server sends mail (serve --smtp-url).
func (s *Admin) MailConfigured() bool { return s.opts.Mail }
