package dataset

import (
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"go.yaml.in/yaml/v3"
)

// Decode decodes one dataset document (YAML or JSON, see docs/product.md#the-dataset-format) and
// validates it on its own. name is used in errors and relative file paths are
// resolved against filepath.Dir(name). Titles in requires are resolved to the
// slugs of this document's challenges. Errors are *Error values, joined with
// errors.Join when there are several.
func Decode(data []byte, name string) (*Dataset, error) {
	return decode(data, name, false)
}

// DecodeUpload decodes a dataset sent to the server (the web app's import)
// as Decode does, but a file given by path is refused: the path would name
// a file of the server's, not of the sender's. Such a dataset carries its
// files as contentBase64 (as a dump does) or url.
func DecodeUpload(data []byte, name string) (*Dataset, error) {
	return decode(data, name, true)
}

func decode(data []byte, name string, noPaths bool) (*Dataset, error) {
	ds, errs := decodeStream(bytesOpener(data), name, noPaths)
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

// sections are the top-level keys of a dataset. add decodes an entry of
// the key's list, found at src, into ds; the event is one mapping, not a
// list (see topValue).
var sections = []struct {
	key string
	add func(d *decoder, ds *Dataset, src Source, n *yaml.Node)
}{
	{"event", nil},
	{"secrets", nil},
	{"users", entries((*decoder).user, func(ds *Dataset) *[]User { return &ds.Users })},
	{"challenges", entries((*decoder).challenge, func(ds *Dataset) *[]Challenge { return &ds.Challenges })},
	{"solves", entries((*decoder).solve, func(ds *Dataset) *[]Solve { return &ds.Solves })},
	{"attempts", entries((*decoder).submission, func(ds *Dataset) *[]Attempt { return &ds.Attempts })},
	{"writeups", entries((*decoder).writeup, func(ds *Dataset) *[]Writeup { return &ds.Writeups })},
	{"reviews", entries((*decoder).review, func(ds *Dataset) *[]Review { return &ds.Reviews })},
	{"hintUnlocks", entries((*decoder).hintUnlock, func(ds *Dataset) *[]HintUnlock { return &ds.HintUnlocks })},
	{"announcements", entries((*decoder).announcement, func(ds *Dataset) *[]Announcement { return &ds.Announcements })},
	{"sharing", entries((*decoder).sharing, func(ds *Dataset) *[]Sharing { return &ds.Sharing })},
	{"webhooks", entries((*decoder).webhook, func(ds *Dataset) *[]Webhook { return &ds.Webhooks })},
	{"pages", entries((*decoder).page, func(ds *Dataset) *[]Page { return &ds.Pages })},
	{"logo", nil},
}

// entries is the add of a section whose entries decode reads into the list at.
func entries[T any](decode func(d *decoder, n *yaml.Node, src Source) T, at func(*Dataset) *[]T) func(*decoder, *Dataset, Source, *yaml.Node) {
	return func(d *decoder, ds *Dataset, src Source, n *yaml.Node) {
		l := at(ds)
		*l = append(*l, decode(d, n, src))
	}
}

// topKeys are the sections' keys, in their order for suggestions.
var topKeys = func() []string {
	var keys []string
	for _, s := range sections {
		keys = append(keys, s.key)
	}
	return keys
}()

// decodeDataset decodes a whole document as one tree, without
// cross-entry validation (ReadPaths merges first). decodeStream is the
// usual way in; this is its fallback.
func decodeDataset(data []byte, name string, noPaths bool) (*Dataset, []error) {
	root, err := parse(data, name)
	if err != nil {
		return nil, []error{&Error{File: name, Msg: err.Error()}}
	}
	d := newDecoder(name, false)
	d.noPaths = noPaths
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
	case "webhooks", "pages":
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
	if kind == "event" || kind == "logo" {
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
	case kind == "webhooks", kind == "pages":
		s += fmt.Sprintf(" (name %q)", key)
	}
	return s
}

var userFields = newMapping(rejectUnknown, nil,
	asText("id", func(u *User) *string { return &u.ID }),
	asText("username", func(u *User) *string { return &u.Username }),
	asText("name", func(u *User) *string { return &u.Name }),
	asTrimmed("email", func(u *User) *string { return &u.Email }),
	asText("password", func(u *User) *string { return &u.Password }),
	asText("passwordHash", func(u *User) *string { return &u.PasswordHash }),
	asLower("role", func(u *User) *string { return (*string)(&u.Role) }),
	asBool("banned", func(u *User) *bool { return &u.Banned }),
	asTrimmed("banReason", func(u *User) *string { return &u.BanReason }),
	asBool("emailUnverified", func(u *User) *bool { return &u.EmailUnverified }),
	asTime("createdAt", func(u *User) **time.Time { return &u.CreatedAt }),
	asLower("kind", func(u *User) *string { return (*string)(&u.Kind) }),
	asTrimmed("owner", func(u *User) *string { return &u.Owner }),
	asText("model", func(u *User) *string { return &u.Model }),
	asText("harness", func(u *User) *string { return &u.Harness }),
	field[User]{"apiKeys", func(d *decoder, u *User, v *yaml.Node, path string) {
		for j, kn := range d.items(v, path) {
			var a APIKey
			apiKeyFields.decode(d, kn, fmt.Sprintf("%s[%d]", path, j), &a)
			u.APIKeys = append(u.APIKeys, a)
		}
	}},
	field[User]{"twoFactor", func(d *decoder, u *User, v *yaml.Node, path string) {
		if !isNull(v) {
			u.TwoFactor = &TwoFactor{}
			twoFactorFields.decode(d, v, path, u.TwoFactor)
		}
	}},
)

func (d *decoder) user(n *yaml.Node, src Source) User {
	u := User{Source: src}
	userFields.decode(d, n, "", &u)
	if u.Role == "" {
		u.Role = ctf.RolePlayer
	}
	return u
}

var apiKeyFields = newMapping(rejectUnknown, nil,
	asText("id", func(a *APIKey) *string { return &a.ID }),
	asText("name", func(a *APIKey) *string { return &a.Name }),
	asText("keyPrefix", func(a *APIKey) *string { return &a.KeyPrefix }),
	asText("keyHash", func(a *APIKey) *string { return &a.KeyHash }),
	asTime("createdAt", func(a *APIKey) **time.Time { return &a.CreatedAt }),
	asTime("lastUsedAt", func(a *APIKey) **time.Time { return &a.LastUsedAt }),
	asTime("revokedAt", func(a *APIKey) **time.Time { return &a.RevokedAt }),
	asBool("readOnly", func(a *APIKey) *bool { return &a.ReadOnly }),
)

// twoFactorFields read a user's 2FA state; the secret is read as apps take
// it (any case, spaces and padding dropped), the hashes in lower case.
var twoFactorFields = newMapping(rejectUnknown, nil,
	asCleaned("secret", func(tf *TwoFactor) *string { return &tf.Secret }, func(s string) string {
		return strings.TrimRight(strings.ToUpper(strings.Join(strings.Fields(s), "")), "=")
	}),
	field[TwoFactor]{"recoveryCodes", func(d *decoder, tf *TwoFactor, v *yaml.Node, path string) {
		for j, h := range d.items(v, path) {
			tf.RecoveryCodes = append(tf.RecoveryCodes, lowerTrim(d.str(h, fmt.Sprintf("%s[%d]", path, j))))
		}
	}},
	field[TwoFactor]{"lastStep", func(d *decoder, tf *TwoFactor, v *yaml.Node, path string) {
		if step, ok := d.integer(v, path); ok {
			if step < 0 {
				d.fail(path, "must not be negative")
			}
			tf.LastStep = int64(step)
		}
	}},
)

// webhookFields are trimmed as the admin form trims them.
var webhookFields = newMapping(rejectUnknown, nil,
	asText("id", func(w *Webhook) *string { return &w.ID }),
	asTrimmed("name", func(w *Webhook) *string { return &w.Name }),
	asTrimmed("kind", func(w *Webhook) *string { return (*string)(&w.Kind) }),
	asTrimmed("url", func(w *Webhook) *string { return &w.URL }),
	asTrimmed("secret", func(w *Webhook) *string { return &w.Secret }),
	field[Webhook]{"events", func(d *decoder, w *Webhook, v *yaml.Node, path string) {
		for _, e := range d.strs(v, path) {
			w.Events = append(w.Events, ctf.WebhookEvent(strings.TrimSpace(e)))
		}
	}},
	asBool("enabled", func(w *Webhook) *bool { return &w.Enabled }),
	asTime("createdAt", func(w *Webhook) **time.Time { return &w.CreatedAt }),
)

// webhook decodes a webhook; without an enabled key it is on.
func (d *decoder) webhook(n *yaml.Node, src Source) Webhook {
	w := Webhook{Enabled: true, Source: src}
	webhookFields.decode(d, n, "", &w)
	return w
}

// submissionFields are those of a solve and of an attempt (same shape).
var submissionFields = newMapping(rejectUnknown, nil,
	asText("id", func(a *Attempt) *string { return &a.ID }),
	asName("user", func(a *Attempt) *string { return &a.User }),
	asName("challenge", func(a *Attempt) *string { return &a.Challenge }),
	asTime("at", func(a *Attempt) **time.Time { return &a.At }),
	asText("flag", func(a *Attempt) *string { return &a.Flag }),
	asLower("door", func(a *Attempt) *string { return (*string)(&a.Door) }),
	asTrimmed("key", func(a *Attempt) *string { return &a.Key }),
	asBool("practice", func(a *Attempt) *bool { return &a.Practice }),
)

func (d *decoder) submission(n *yaml.Node, src Source) Attempt {
	a := Attempt{Source: src}
	submissionFields.decode(d, n, "", &a)
	return a
}

// solve decodes a solve; its flag is kept once (see decoder.names).
func (d *decoder) solve(n *yaml.Node, src Source) Solve {
	s := Solve(d.submission(n, src))
	s.Flag = d.intern(s.Flag)
	return s
}

var writeupFields = newMapping(rejectUnknown, nil,
	asText("id", func(w *Writeup) *string { return &w.ID }),
	asName("user", func(w *Writeup) *string { return &w.User }),
	asName("challenge", func(w *Writeup) *string { return &w.Challenge }),
	asText("title", func(w *Writeup) *string { return &w.Title }),
	asText("content", func(w *Writeup) *string { return &w.Content }),
	asLower("status", func(w *Writeup) *string { return (*string)(&w.Status) }),
	asText("reason", func(w *Writeup) *string { return &w.Reason }),
	asTexts("images", func(w *Writeup) *[]string { return &w.Images }),
	asTime("createdAt", func(w *Writeup) **time.Time { return &w.CreatedAt }),
	asTime("updatedAt", func(w *Writeup) **time.Time { return &w.UpdatedAt }),
)

func (d *decoder) writeup(n *yaml.Node, src Source) Writeup {
	w := Writeup{Source: src}
	writeupFields.decode(d, n, "", &w)
	if w.Status == "" {
		w.Status = ctf.WriteupPending
	}
	return w
}

var reviewFields = newMapping(rejectUnknown, nil,
	asText("id", func(r *Review) *string { return &r.ID }),
	asName("user", func(r *Review) *string { return &r.User }),
	asName("challenge", func(r *Review) *string { return &r.Challenge }),
	asInt("stars", func(r *Review) *int { return &r.Stars }),
	asInt("difficulty", func(r *Review) *int { return &r.Difficulty }),
	asTime("createdAt", func(r *Review) **time.Time { return &r.CreatedAt }),
)

func (d *decoder) review(n *yaml.Node, src Source) Review {
	r := Review{Source: src}
	reviewFields.decode(d, n, "", &r)
	return r
}

var eventFields = newMapping(rejectUnknown, nil,
	asTrimmed("name", func(e *Event) *string { return &e.Name }),
	asTime("start", func(e *Event) **time.Time { return &e.Start }),
	asTime("end", func(e *Event) **time.Time { return &e.End }),
	asTime("freeze", func(e *Event) **time.Time { return &e.Freeze }),
	asBool("unfreezeAtEnd", func(e *Event) *bool { return &e.UnfreezeAtEnd }),
	asTime("unfrozen", func(e *Event) **time.Time { return &e.Unfrozen }),
	asBool("practice", func(e *Event) *bool { return &e.Practice }),
	asTrimmed("flagFormat", func(e *Event) *string { return &e.FlagFormat }),
)

func (d *decoder) event(n *yaml.Node, src Source) Event {
	e := Event{Source: src}
	eventFields.decode(d, n, "", &e)
	return e
}

var pageFields = newMapping(rejectUnknown, nil,
	asLower("name", func(p *Page) *string { return &p.Name }),
	asText("text", func(p *Page) *string { return &p.Text }),
)

func (d *decoder) page(n *yaml.Node, src Source) Page {
	p := Page{Source: src}
	pageFields.decode(d, n, "", &p)
	return p
}

var logoFields = newMapping(rejectUnknown, nil,
	asCleaned("contentBase64", func(l *Logo) *string { return &l.ContentBase64 }, func(s string) string {
		return strings.Join(strings.Fields(s), "")
	}),
)

func (d *decoder) logo(n *yaml.Node, src Source) Logo {
	l := Logo{Source: src}
	logoFields.decode(d, n, "", &l)
	b, err := base64.StdEncoding.DecodeString(l.ContentBase64)
	if err != nil {
		d.fail("contentBase64", "must be standard base64")
		b = nil
	}
	l.Data = b
	return l
}

// announcementFields are trimmed as a posted announcement is.
var announcementFields = newMapping(rejectUnknown, nil,
	asText("id", func(a *Announcement) *string { return &a.ID }),
	asTrimmed("title", func(a *Announcement) *string { return &a.Title }),
	asTrimmed("body", func(a *Announcement) *string { return &a.Body }),
	asTrimmed("challenge", func(a *Announcement) *string { return &a.Challenge }),
	asTrimmed("author", func(a *Announcement) *string { return &a.Author }),
	asTime("createdAt", func(a *Announcement) **time.Time { return &a.CreatedAt }),
)

func (d *decoder) announcement(n *yaml.Node, src Source) Announcement {
	a := Announcement{Source: src}
	announcementFields.decode(d, n, "", &a)
	return a
}

var sharingFields = newMapping(rejectUnknown, nil,
	asText("id", func(s *Sharing) *string { return &s.ID }),
	asName("user", func(s *Sharing) *string { return &s.User }),
	asName("owner", func(s *Sharing) *string { return &s.Owner }),
	asName("challenge", func(s *Sharing) *string { return &s.Challenge }),
	asTime("at", func(s *Sharing) **time.Time { return &s.At }),
	asLower("door", func(s *Sharing) *string { return (*string)(&s.Door) }),
	asText("key", func(s *Sharing) *string { return &s.Key }),
)

func (d *decoder) sharing(n *yaml.Node, src Source) Sharing {
	s := Sharing{Source: src}
	sharingFields.decode(d, n, "", &s)
	return s
}
