package dataset

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decode decodes one dataset document (YAML or JSON, see docs/product.md#the-dataset-format) and
// validates it on its own. name is used in errors and relative file paths are
// resolved against filepath.Dir(name). Titles in requires are resolved to the
// slugs of this document's challenges. Errors are *Error values, joined with
// errors.Join when there are several.
func Decode(data []byte, name string) (*Dataset, error) {
	ds, errs := decodeStream(bytesOpener(data), name)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if errs := ds.resolveRequires(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	return ds, nil
}

func newDecoder(name string, ctfcli bool) *decoder {
	return &decoder{file: name, dir: filepath.Dir(name), ctfcli: ctfcli}
}

var topKeys = []string{"event", "users", "challenges", "solves", "attempts", "writeups", "reviews", "announcements", "webhooks"}

// decodeDataset decodes a whole document as one tree, without
// cross-entry validation (ReadPaths merges first). decodeStream is the
// usual way in; this is its fallback.
func decodeDataset(data []byte, name string) (*Dataset, []error) {
	root, err := parse(data, name)
	if err != nil {
		return nil, []error{&Error{File: name, Msg: err.Error()}}
	}
	d := newDecoder(name, false)
	ds := &Dataset{}
	keys, vals := d.pairs(root, "")
	for k, key := range keys {
		d.topValue(ds, key, vals[k])
	}
	return ds, d.errs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// entryKey finds the natural key of an entry before decoding it, for labels.
func entryKey(kind string, n *yaml.Node) string {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	get := func(k string) string {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if v := deref(n.Content[i+1]); deref(n.Content[i]).Value == k && v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
				return v.Value
			}
		}
		return ""
	}
	switch kind {
	case "users":
		return get("username")
	case "announcements":
		return get("title")
	case "webhooks":
		return get("name")
	case "challenges":
		if s := get("slug"); s != "" {
			return s
		}
		if t := get("title"); t != "" {
			return Slugify(t)
		}
		return Slugify(get("name"))
	}
	return ""
}

// label names an entry: `users[3] (username "bob")`, `solves[0]`, `challenge`,
// `event`.
func label(kind string, src Source, key string) string {
	if kind == "event" {
		return kind
	}
	if src.Index < 0 {
		return "challenge"
	}
	s := fmt.Sprintf("%s[%d]", kind, src.Index)
	switch {
	case key == "":
	case kind == "users":
		s += fmt.Sprintf(" (username %q)", key)
	case kind == "challenges":
		s += fmt.Sprintf(" (slug %q)", key)
	case kind == "announcements":
		s += fmt.Sprintf(" (title %q)", key)
	case kind == "webhooks":
		s += fmt.Sprintf(" (name %q)", key)
	}
	return s
}

var userKeys = []string{"id", "username", "name", "email", "password", "passwordHash", "role", "banned", "createdAt",
	"kind", "owner", "model", "harness", "apiKeys", "twoFactor"}

func (d *decoder) user(n *yaml.Node) User {
	var u User
	keys, vals := d.pairs(n, "")
	for i, k := range keys {
		v := vals[i]
		switch k {
		case "id":
			u.ID = d.str(v, k)
		case "username":
			u.Username = d.str(v, k)
		case "name":
			u.Name = d.str(v, k)
		case "email":
			u.Email = strings.TrimSpace(d.str(v, k))
		case "password":
			u.Password = d.str(v, k)
		case "passwordHash":
			u.PasswordHash = d.str(v, k)
		case "role":
			u.Role = strings.ToLower(strings.TrimSpace(d.str(v, k)))
		case "banned":
			u.Banned = d.boolean(v, k)
		case "createdAt":
			u.CreatedAt = d.timestamp(v, k)
		case "kind":
			u.Kind = strings.ToLower(strings.TrimSpace(d.str(v, k)))
		case "owner":
			u.Owner = strings.TrimSpace(d.str(v, k))
		case "model":
			u.Model = d.str(v, k)
		case "harness":
			u.Harness = d.str(v, k)
		case "apiKeys":
			for j, kn := range d.items(v, k) {
				u.APIKeys = append(u.APIKeys, d.apiKey(kn, fmt.Sprintf("apiKeys[%d].", j)))
			}
		case "twoFactor":
			if !isNull(v) {
				u.TwoFactor = d.twoFactor(v, k+".")
			}
		default:
			d.unknown(k, k, userKeys)
		}
	}
	if u.Role == "" {
		u.Role = "player"
	}
	return u
}

var apiKeyKeys = []string{"id", "name", "keyPrefix", "keyHash", "createdAt", "lastUsedAt", "revokedAt", "readOnly"}

func (d *decoder) apiKey(n *yaml.Node, prefix string) APIKey {
	var a APIKey
	keys, vals := d.pairs(n, strings.TrimSuffix(prefix, "."))
	for i, k := range keys {
		v, f := vals[i], prefix+k
		switch k {
		case "id":
			a.ID = d.str(v, f)
		case "name":
			a.Name = d.str(v, f)
		case "keyPrefix":
			a.KeyPrefix = d.str(v, f)
		case "keyHash":
			a.KeyHash = d.str(v, f)
		case "createdAt":
			a.CreatedAt = d.timestamp(v, f)
		case "lastUsedAt":
			a.LastUsedAt = d.timestamp(v, f)
		case "revokedAt":
			a.RevokedAt = d.timestamp(v, f)
		case "readOnly":
			a.ReadOnly = d.boolean(v, f)
		default:
			d.unknown(f, k, apiKeyKeys)
		}
	}
	return a
}

var twoFactorKeys = []string{"secret", "recoveryCodes", "lastStep"}

// twoFactor decodes a user's 2FA state; the secret is read as apps take
// it (any case, spaces and padding dropped), the hashes in lower case.
func (d *decoder) twoFactor(n *yaml.Node, prefix string) *TwoFactor {
	tf := &TwoFactor{}
	keys, vals := d.pairs(n, strings.TrimSuffix(prefix, "."))
	for i, k := range keys {
		v, f := vals[i], prefix+k
		switch k {
		case "secret":
			tf.Secret = strings.TrimRight(strings.ToUpper(strings.Join(strings.Fields(d.str(v, f)), "")), "=")
		case "recoveryCodes":
			for j, h := range d.items(v, f) {
				tf.RecoveryCodes = append(tf.RecoveryCodes, strings.ToLower(strings.TrimSpace(d.str(h, fmt.Sprintf("%s[%d]", f, j)))))
			}
		case "lastStep":
			if step, ok := d.integer(v, f); ok {
				if step < 0 {
					d.fail(f, "must not be negative")
				}
				tf.LastStep = int64(step)
			}
		default:
			d.unknown(f, k, twoFactorKeys)
		}
	}
	return tf
}

var webhookKeys = []string{"id", "name", "kind", "url", "secret", "events", "enabled", "createdAt"}

// webhook decodes a webhook, trimmed as the admin form trims it; without
// an enabled key it is on.
func (d *decoder) webhook(n *yaml.Node) Webhook {
	w := Webhook{Enabled: true}
	keys, vals := d.pairs(n, "")
	for i, k := range keys {
		v := vals[i]
		switch k {
		case "id":
			w.ID = d.str(v, k)
		case "name":
			w.Name = strings.TrimSpace(d.str(v, k))
		case "kind":
			w.Kind = strings.TrimSpace(d.str(v, k))
		case "url":
			w.URL = strings.TrimSpace(d.str(v, k))
		case "secret":
			w.Secret = strings.TrimSpace(d.str(v, k))
		case "events":
			for _, e := range d.strs(v, k) {
				w.Events = append(w.Events, strings.TrimSpace(e))
			}
		case "enabled":
			w.Enabled = d.boolean(v, k)
		case "createdAt":
			w.CreatedAt = d.timestamp(v, k)
		default:
			d.unknown(k, k, webhookKeys)
		}
	}
	return w
}

var submissionKeys = []string{"id", "user", "challenge", "at", "flag", "door", "key", "practice"}

// submission decodes a solve or an attempt (same shape).
func (d *decoder) submission(n *yaml.Node) Attempt {
	var a Attempt
	keys, vals := d.pairs(n, "")
	for i, k := range keys {
		v := vals[i]
		switch k {
		case "id":
			a.ID = d.str(v, k)
		case "user":
			a.User = d.name(v, k)
		case "challenge":
			a.Challenge = d.name(v, k)
		case "at":
			a.At = d.timestamp(v, k)
		case "flag":
			a.Flag = d.str(v, k)
		case "door":
			a.Door = strings.ToLower(strings.TrimSpace(d.str(v, k)))
		case "key":
			a.Key = strings.TrimSpace(d.str(v, k))
		case "practice":
			a.Practice = d.boolean(v, k)
		default:
			d.unknown(k, k, submissionKeys)
		}
	}
	return a
}

var writeupKeys = []string{"id", "user", "challenge", "title", "content", "status", "reason", "images", "createdAt", "updatedAt"}

func (d *decoder) writeup(n *yaml.Node) Writeup {
	var w Writeup
	keys, vals := d.pairs(n, "")
	for i, k := range keys {
		v := vals[i]
		switch k {
		case "id":
			w.ID = d.str(v, k)
		case "user":
			w.User = d.name(v, k)
		case "challenge":
			w.Challenge = d.name(v, k)
		case "title":
			w.Title = d.str(v, k)
		case "content":
			w.Content = d.str(v, k)
		case "status":
			w.Status = strings.ToLower(strings.TrimSpace(d.str(v, k)))
		case "reason":
			w.Reason = d.str(v, k)
		case "images":
			w.Images = d.strs(v, k)
		case "createdAt":
			w.CreatedAt = d.timestamp(v, k)
		case "updatedAt":
			w.UpdatedAt = d.timestamp(v, k)
		default:
			d.unknown(k, k, writeupKeys)
		}
	}
	if w.Status == "" {
		w.Status = "pending"
	}
	return w
}

var reviewKeys = []string{"id", "user", "challenge", "stars", "difficulty", "createdAt"}

func (d *decoder) review(n *yaml.Node) Review {
	var r Review
	keys, vals := d.pairs(n, "")
	for i, k := range keys {
		v := vals[i]
		switch k {
		case "id":
			r.ID = d.str(v, k)
		case "user":
			r.User = d.name(v, k)
		case "challenge":
			r.Challenge = d.name(v, k)
		case "stars":
			r.Stars, _ = d.integer(v, k)
		case "difficulty":
			r.Difficulty, _ = d.integer(v, k)
		case "createdAt":
			r.CreatedAt = d.timestamp(v, k)
		default:
			d.unknown(k, k, reviewKeys)
		}
	}
	return r
}

var eventKeys = []string{"name", "start", "end", "freeze", "unfreezeAtEnd", "unfrozen", "practice", "flagFormat"}

func (d *decoder) event(n *yaml.Node) Event {
	var e Event
	keys, vals := d.pairs(n, "")
	for i, k := range keys {
		v := vals[i]
		switch k {
		case "name":
			e.Name = strings.TrimSpace(d.str(v, k))
		case "start":
			e.Start = d.timestamp(v, k)
		case "end":
			e.End = d.timestamp(v, k)
		case "freeze":
			e.Freeze = d.timestamp(v, k)
		case "unfreezeAtEnd":
			e.UnfreezeAtEnd = d.boolean(v, k)
		case "unfrozen":
			e.Unfrozen = d.timestamp(v, k)
		case "practice":
			e.Practice = d.boolean(v, k)
		case "flagFormat":
			e.FlagFormat = strings.TrimSpace(d.str(v, k))
		default:
			d.unknown(k, k, eventKeys)
		}
	}
	return e
}

var announcementKeys = []string{"id", "title", "body", "challenge", "author", "createdAt"}

// announcement decodes an announcement, trimmed as a posted one is.
func (d *decoder) announcement(n *yaml.Node) Announcement {
	var a Announcement
	keys, vals := d.pairs(n, "")
	for i, k := range keys {
		v := vals[i]
		switch k {
		case "id":
			a.ID = d.str(v, k)
		case "title":
			a.Title = strings.TrimSpace(d.str(v, k))
		case "body":
			a.Body = strings.TrimSpace(d.str(v, k))
		case "challenge":
			a.Challenge = strings.TrimSpace(d.str(v, k))
		case "author":
			a.Author = strings.TrimSpace(d.str(v, k))
		case "createdAt":
			a.CreatedAt = d.timestamp(v, k)
		default:
			d.unknown(k, k, announcementKeys)
		}
	}
	return a
}
