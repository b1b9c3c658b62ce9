package dataset

import (
	"slices"
	"testing"
)

// TestKnownKeys pins each mapping's keys and their order: an unknown key is
// told the first known key as close as any ("did you mean ...?"), so the
// order is part of the messages.
func TestKnownKeys(t *testing.T) {
	for _, tc := range []struct {
		name          string
		keys, ignored []string
		want          []string
	}{
		{"top", topKeys, nil, []string{"event", "secrets", "users", "challenges", "solves", "attempts", "writeups", "reviews", "hintUnlocks", "announcements", "sharing", "webhooks", "pages", "logo"}},
		{"user", userFields.keys, userFields.ignored, []string{"id", "username", "name", "email", "password", "passwordHash", "role",
			"banned", "banReason", "emailUnverified", "createdAt", "kind", "owner", "model", "harness", "apiKeys", "twoFactor"}},
		{"apiKey", apiKeyFields.keys, apiKeyFields.ignored, []string{"id", "name", "keyPrefix", "keyHash", "createdAt", "lastUsedAt", "revokedAt", "readOnly"}},
		{"twoFactor", twoFactorFields.keys, twoFactorFields.ignored, []string{"secret", "recoveryCodes", "lastStep"}},
		{"webhook", webhookFields.keys, webhookFields.ignored, []string{"id", "name", "kind", "url", "secret", "events", "enabled", "createdAt"}},
		{"submission", submissionFields.keys, submissionFields.ignored, []string{"id", "user", "challenge", "at", "flag", "door", "key", "practice"}},
		{"writeup", writeupFields.keys, writeupFields.ignored, []string{"id", "user", "challenge", "title", "content", "status", "reason", "images", "createdAt", "updatedAt"}},
		{"review", reviewFields.keys, reviewFields.ignored, []string{"id", "user", "challenge", "stars", "difficulty", "createdAt"}},
		{"event", eventFields.keys, eventFields.ignored, []string{"name", "start", "end", "freeze", "unfreezeAtEnd", "unfrozen", "practice", "flagFormat"}},
		{"page", pageFields.keys, pageFields.ignored, []string{"name", "text"}},
		{"logo", logoFields.keys, logoFields.ignored, []string{"contentBase64"}},
		{"announcement", announcementFields.keys, announcementFields.ignored, []string{"id", "title", "body", "challenge", "author", "createdAt"}},
		{"challenge", challengeFields.keys, challengeFields.ignored, []string{
			"id", "slug", "title", "description", "categories", "difficulty", "points", "type", "flags",
			"requires", "author", "file", "hasInstance", "dockerPort", "instance", "hidden", "tags", "connectionInfo", "flagFormat", "origin",
			"scoring", "hints", "releaseAt", "createdAt",
			"name", "value", "category", "requirements", "state", "files", "connection_info", "extra",
		}},
		{"sharing", sharingFields.keys, sharingFields.ignored, []string{"id", "user", "owner", "challenge", "at", "door", "key"}},
		{"extra", extraFields.keys, extraFields.ignored, []string{"initial", "decay", "minimum", "function"}},
		{"scoring", scoringFields.keys, scoringFields.ignored, []string{"type", "initial", "minimum", "decay", "function"}},
		{"hint", hintFields.keys, hintFields.ignored, []string{"id", "content", "cost", "requires"}},
		{"hintUnlock", hintUnlockFields.keys, hintUnlockFields.ignored, []string{"user", "challenge", "hint", "at", "charged"}},
		{"instance", instanceFields.keys, instanceFields.ignored, []string{"image", "port", "protocol", "flag", "flagEnv", "env",
			"lifetime", "maxLifetime", "memory", "cpus", "pids", "shared"}},
		{"flag", flagFields.keys, flagFields.ignored, []string{"type", "content", "data"}},
		{"requirements", requirementFields.keys, requirementFields.ignored, []string{"prerequisites", "anonymize"}},
		{"tag", tagFields.keys, tagFields.ignored, []string{"value"}},
		{"file", fileFields.keys, fileFields.ignored, []string{"name", "path", "url", "sha256", "contentBase64"}},
	} {
		if !slices.Equal(tc.keys, tc.want) {
			t.Errorf("%s keys = %q, want %q", tc.name, tc.keys, tc.want)
		}
		// A key listed twice would never reach its second field, and an
		// ignored key that is read is not ignored.
		seen := map[string]bool{}
		for _, k := range append(slices.Clone(tc.keys), tc.ignored...) {
			if seen[k] {
				t.Errorf("%s: key %q described twice", tc.name, k)
			}
			seen[k] = true
		}
	}
}
