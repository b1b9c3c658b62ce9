package dataset

import (
	"encoding/json"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// Encode writes d as one dataset document, for `flagship dump`. format is
// "yaml" (2-space indentation) or "json" (indented 2 spaces, HTML characters
// not escaped). Everything the types hold is written (ids, timestamps with
// their full precision, passwordHash, apiKeys, twoFactor, file contentBase64
// and sha256, webhooks with their secrets)
// except Source, so Decode of the output yields an equal Dataset. Encode does
// not validate: dump writes what the database holds.
func Encode(w io.Writer, d *Dataset, format string) error {
	if d == nil {
		d = &Dataset{}
	}
	switch format {
	case "yaml", "yml":
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("encode yaml: %w", err)
		}
		return enc.Close()
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("encode json: %w", err)
		}
		return nil
	}
	return fmt.Errorf("unknown dataset format %q (want yaml or json)", format)
}

// Merge appends the entries of other to d (as ReadPaths does for each file);
// other's event settings, if any, replace d's (ReadPaths refuses two files
// that both give them). It neither resolves requires nor validates; call
// Validate afterwards. d may take over other's lists: leave other alone.
func (d *Dataset) Merge(other *Dataset) {
	if other == nil {
		return
	}
	if other.Event != nil {
		d.Event = other.Event
	}
	d.Announcements = merge(d.Announcements, other.Announcements)
	d.Pages = merge(d.Pages, other.Pages)
	if other.Logo != nil {
		d.Logo = other.Logo
	}
	d.Users = merge(d.Users, other.Users)
	d.Challenges = merge(d.Challenges, other.Challenges)
	d.Solves = merge(d.Solves, other.Solves)
	d.Attempts = merge(d.Attempts, other.Attempts)
	d.Writeups = merge(d.Writeups, other.Writeups)
	d.Reviews = merge(d.Reviews, other.Reviews)
	d.HintUnlocks = merge(d.HintUnlocks, other.HintUnlocks)
	d.Webhooks = merge(d.Webhooks, other.Webhooks)
	d.Sharing = merge(d.Sharing, other.Sharing)
	for k, v := range other.Secrets {
		if d.Secrets == nil {
			d.Secrets = map[string]string{}
		}
		d.Secrets[k] = v
	}
}

// merge appends b to a, taking b as it is when a is empty: a dump's lists
// are hundreds of thousands of entries long, and a copy would hold them
// twice for a moment.
func merge[T any](a, b []T) []T {
	if len(a) == 0 {
		return b
	}
	return append(a, b...)
}

// ChallengeIndex returns the index of the challenge with this slug, or -1.
func (d *Dataset) ChallengeIndex(slug string) int {
	for i, c := range d.Challenges {
		if c.Slug == slug {
			return i
		}
	}
	return -1
}

// UserIndex returns the index of the user with this username, or -1.
func (d *Dataset) UserIndex(username string) int {
	for i, u := range d.Users {
		if u.Username == username {
			return i
		}
	}
	return -1
}
