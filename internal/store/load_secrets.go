package store

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
)

// What a dump carries besides the event, so that `dump | load` moves a
// platform without turning anything off: the users' two-factor state and
// the webhooks, secrets included.

// loadTwoFactor turns two-factor authentication on for the users whose
// entry gives its state, after every user row is in. A user without the
// key keeps theirs as it is.
func (l *loader) loadTwoFactor() error {
	for _, u := range l.ds.Users {
		if u.TwoFactor == nil {
			continue
		}
		if err := l.twoFactor(l.users[u.Username], u.TwoFactor); err != nil {
			return fmt.Errorf("load two-factor of %q: %w", u.Username, err)
		}
	}
	return nil
}

// twoFactor stores one user's 2FA state. A file never makes a code good
// again: the last step accepted only moves forward, and a recovery code
// the database has marked used stays used. Codes the file does not list
// are forgotten, as when the user enrols again.
func (l *loader) twoFactor(userID string, tf *dataset.TwoFactor) error {
	var on bool
	var secret string
	var step int64
	if err := l.tx.QueryRowContext(l.ctx, "SELECT two_factor, totp_secret, totp_step FROM users WHERE id = ?", userID).
		Scan(&on, &secret, &step); err != nil {
		return err
	}
	newStep := max(step, tf.LastStep)
	if _, err := l.tx.ExecContext(l.ctx, "UPDATE users SET two_factor = ?, totp_secret = ?, totp_pending = '', totp_step = ? WHERE id = ?",
		true, tf.Secret, newStep, userID); err != nil {
		return err
	}
	var had []string
	err := eachRow(l.ctx, l.tx, "SELECT code_hash FROM recovery_codes WHERE user_id = ?", func(sc scanner) error {
		var h string
		err := sc.Scan(&h)
		had = append(had, h)
		return err
	}, userID)
	if err != nil {
		return err
	}
	for _, h := range had {
		if !slices.Contains(tf.RecoveryCodes, h) {
			if _, err := l.tx.ExecContext(l.ctx, "DELETE FROM recovery_codes WHERE user_id = ? AND code_hash = ?", userID, h); err != nil {
				return err
			}
		}
	}
	for _, h := range tf.RecoveryCodes {
		if !slices.Contains(had, h) {
			if _, err := l.tx.ExecContext(l.ctx, "INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)", userID, h); err != nil {
				return err
			}
		}
	}
	slices.Sort(had)
	codes := slices.Sorted(slices.Values(tf.RecoveryCodes))
	l.rep.count("twoFactor", !on, on && (secret != tf.Secret || step != newStep || !slices.Equal(had, codes)))
	return nil
}

// loadWebhooks upserts the webhooks by id or, without one, by name. A new
// webhook gets the events recorded after the load (its delivery log stays
// behind: a load sends nothing again); an updated one keeps its place. A
// json webhook given no secret keeps the one it has, or gets a new one.
func (l *loader) loadWebhooks() error {
	for i, w := range l.ds.Webhooks {
		const k = "webhooks"
		var old []Webhook
		var err error
		if w.ID != "" {
			old, err = queryWebhooks(l.ctx, l.tx, "WHERE id = ?", w.ID)
		} else {
			old, err = queryWebhooks(l.ctx, l.tx, "WHERE name = ?", w.Name)
		}
		if err != nil {
			return err
		}
		if len(old) > 1 {
			return l.fail(k, i, "name", "%d webhooks are named %q; give the id of one", len(old), w.Name)
		}
		nw := Webhook{ID: w.ID, Name: w.Name, Kind: w.Kind, URL: w.URL, Secret: w.Secret, Events: ctf.WebhookEventsOf(w.Events),
			Enabled: w.Enabled, CreatedAt: l.stamp(w.CreatedAt)}
		exists := len(old) == 1
		if exists {
			nw.ID, nw.AfterSeq = old[0].ID, old[0].AfterSeq
			if w.CreatedAt == nil {
				nw.CreatedAt = old[0].CreatedAt
			}
		} else {
			if nw.ID == "" {
				nw.ID = newID()
			}
			if nw.AfterSeq, err = streamHead(l.ctx, l.tx); err != nil {
				return err
			}
		}
		if nw.Kind == ctf.WebhookJSON && nw.Secret == "" {
			if exists && old[0].Kind == ctf.WebhookJSON && old[0].Secret != "" {
				nw.Secret = old[0].Secret
			} else {
				nw.Secret = ctf.NewWebhookSecret()
			}
		}
		events, err := json.Marshal(nw.Events)
		if err != nil {
			return fmt.Errorf("load webhook %q: %w", w.Name, err)
		}
		if _, err := l.tx.ExecContext(l.ctx, "INSERT INTO webhooks ("+webhookColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, url = excluded.url, secret = excluded.secret,
			events = excluded.events, enabled = excluded.enabled, created_at = excluded.created_at`,
			nw.ID, nw.Name, nw.Kind, nw.URL, nw.Secret, string(events), nw.Enabled, ms(nw.CreatedAt), nw.AfterSeq); err != nil {
			return fmt.Errorf("load webhook %q: %w", w.Name, err)
		}
		l.rep.count(k, !exists, exists && !sameWebhook(old[0], nw))
	}
	return nil
}

func sameWebhook(a, b Webhook) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Kind == b.Kind && a.URL == b.URL && a.Secret == b.Secret &&
		slices.Equal(a.Events, b.Events) && a.Enabled == b.Enabled && a.CreatedAt.Equal(b.CreatedAt)
}
