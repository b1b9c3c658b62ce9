package store

import "encoding/json"

// The load's webhooks.

// Webhook reads the webhook with id (none or one).
func (t LoadHooks) Webhook(id string) ([]Webhook, error) {
	return queryWebhooks(t.ctx, t.tx, "WHERE id = ?", id)
}

// WebhooksNamed reads the webhooks named name.
func (t LoadHooks) WebhooksNamed(name string) ([]Webhook, error) {
	return queryWebhooks(t.ctx, t.tx, "WHERE name = ?", name)
}

// UpsertWebhook creates or replaces the webhook by id; a stored one keeps
// its place in the stream (AfterSeq is written only when it is created).
func (t LoadHooks) UpsertWebhook(w Webhook) error {
	events, err := json.Marshal(w.Events)
	if err != nil {
		return err
	}
	_, err = t.tx.ExecContext(t.ctx, "INSERT INTO webhooks ("+webhookColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, url = excluded.url, secret = excluded.secret,
			events = excluded.events, enabled = excluded.enabled, created_at = excluded.created_at`,
		w.ID, w.Name, w.Kind, w.URL, w.Secret, string(events), w.Enabled, ms(w.CreatedAt), w.AfterSeq)
	return err
}
