package store

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
	_, err := t.tx.ExecContext(t.ctx, loadWebhookSQL, webhookValues(w)...)
	return err
}
