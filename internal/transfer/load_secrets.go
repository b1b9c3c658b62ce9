package transfer

import (
	"fmt"
	"slices"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/store"
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
	on, secret, step, err := l.tx.Accounts().TwoFactor(userID)
	if err != nil {
		return err
	}
	newStep := max(step, tf.LastStep)
	if err := l.tx.Accounts().SetTwoFactor(userID, tf.Secret, newStep); err != nil {
		return err
	}
	had, err := l.tx.Accounts().RecoveryCodes(userID)
	if err != nil {
		return err
	}
	for _, h := range had {
		if !slices.Contains(tf.RecoveryCodes, h) {
			if err := l.tx.Accounts().DeleteRecoveryCode(userID, h); err != nil {
				return err
			}
		}
	}
	for _, h := range tf.RecoveryCodes {
		if !slices.Contains(had, h) {
			if err := l.tx.Accounts().AddRecoveryCode(userID, h); err != nil {
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
		var old []store.Webhook
		var err error
		if w.ID != "" {
			old, err = l.tx.Hooks().Webhook(w.ID)
		} else {
			old, err = l.tx.Hooks().WebhooksNamed(w.Name)
		}
		if err != nil {
			return err
		}
		if len(old) > 1 {
			return l.fail(k, i, "name", "%d webhooks are named %q; give the id of one", len(old), w.Name)
		}
		nw := store.Webhook{ID: w.ID, Name: w.Name, Kind: w.Kind, URL: w.URL, Secret: w.Secret, Events: ctf.WebhookEventsOf(w.Events),
			Enabled: w.Enabled, CreatedAt: l.stamp(w.CreatedAt)}
		exists := len(old) == 1
		if exists {
			nw.ID, nw.AfterSeq = old[0].ID, old[0].AfterSeq
			if w.CreatedAt == nil {
				nw.CreatedAt = old[0].CreatedAt
			}
		} else {
			if nw.ID == "" {
				nw.ID = ctf.NewID()
			}
			if nw.AfterSeq, err = l.tx.StreamHead(); err != nil {
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
		if err := l.tx.Hooks().UpsertWebhook(nw); err != nil {
			return fmt.Errorf("load webhook %q: %w", w.Name, err)
		}
		l.rep.count(k, !exists, exists && !sameWebhook(old[0], nw))
	}
	return nil
}

func sameWebhook(a, b store.Webhook) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Kind == b.Kind && a.URL == b.URL && a.Secret == b.Secret &&
		slices.Equal(a.Events, b.Events) && a.Enabled == b.Enabled && a.CreatedAt.Equal(b.CreatedAt)
}

// loadSecrets sets the server's secrets the dataset gives (a dump's) where
// the database has none: a database's own secret keys the flags its players'
// instances were given, and stays.
func (l *loader) loadSecrets() error {
	for name, value := range l.ds.Secrets {
		added, err := l.tx.PutSecret(name, value)
		if err != nil {
			return err
		}
		l.rep.count("secrets", added, false)
	}
	return nil
}
