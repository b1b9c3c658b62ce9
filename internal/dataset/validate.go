package dataset

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
)

// Error is a problem in a dataset, naming the file, the entry and the field:
// `event.yaml: challenges[2] (slug "baby-rsa"): points: must be a non-negative integer`.
// Empty parts are left out of Error().
type Error struct{ File, Entry, Field, Msg string }

func (e *Error) Error() string {
	var parts []string
	for _, p := range []string{e.File, e.Entry, e.Field, e.Msg} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ": ")
}

// Where names the file and the entry of item i of a list of d, kind being
// "users", "challenges", "solves", "attempts", "writeups", "reviews",
// "hintUnlocks", "announcements", "sharing" or "webhooks", or "event" (i is
// then ignored). The entry is labelled
// with its index in the file it came from, e.g. `users[3] (username "bob")`,
// or "challenge" for a ctfcli challenge.yml. For an entry built in code
// (zero Source) file is "" and the index is i.
func (d *Dataset) Where(kind string, i int) (file, entry string) {
	var src Source
	var key string
	switch {
	case kind == "users" && i >= 0 && i < len(d.Users):
		src, key = d.Users[i].Source, d.Users[i].Username
	case kind == "challenges" && i >= 0 && i < len(d.Challenges):
		src, key = d.Challenges[i].Source, d.Challenges[i].Slug
	case kind == "solves" && i >= 0 && i < len(d.Solves):
		src = d.Solves[i].Source
	case kind == "attempts" && i >= 0 && i < len(d.Attempts):
		src = d.Attempts[i].Source
	case kind == "writeups" && i >= 0 && i < len(d.Writeups):
		src = d.Writeups[i].Source
	case kind == "reviews" && i >= 0 && i < len(d.Reviews):
		src = d.Reviews[i].Source
	case kind == "hintUnlocks" && i >= 0 && i < len(d.HintUnlocks):
		src = d.HintUnlocks[i].Source
	case kind == "announcements" && i >= 0 && i < len(d.Announcements):
		src, key = d.Announcements[i].Source, d.Announcements[i].Title
	case kind == "webhooks" && i >= 0 && i < len(d.Webhooks):
		src, key = d.Webhooks[i].Source, d.Webhooks[i].Name
	case kind == "sharing" && i >= 0 && i < len(d.Sharing):
		src = d.Sharing[i].Source
	case kind == "event" && d.Event != nil:
		src = d.Event.Source
	case kind == "pages" && i >= 0 && i < len(d.Pages):
		src, key = d.Pages[i].Source, d.Pages[i].Name
	case kind == "logo" && d.Logo != nil:
		src = d.Logo.Source
	case kind == "secrets":
		return "", "secrets"
	}
	if src.File == "" {
		src.Index = i
	}
	return src.File, label(kind, src, key)
}

// Errorf returns an *Error naming the file and entry of item i of kind (see
// Where) and field, for the loader's own checks (e.g. an unknown slug).
func (d *Dataset) Errorf(kind string, i int, field, format string, args ...any) *Error {
	file, entry := d.Where(kind, i)
	return &Error{File: file, Entry: entry, Field: field, Msg: fmt.Sprintf(format, args...)}
}

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

type validator struct {
	d    *Dataset
	errs []error
}

func (v *validator) add(kind string, i int, field, format string, args ...any) {
	v.errs = append(v.errs, v.d.Errorf(kind, i, field, format, args...))
}

// rule reports a domain rule's failure (see package ctf) at prefix plus the
// field the rule names.
func (v *validator) rule(kind string, i int, prefix string, err error) {
	if err == nil {
		return
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			v.rule(kind, i, prefix, e)
		}
		return
	}
	var ce *ctf.Error
	if !errors.As(err, &ce) || ce.Field == "" {
		v.add(kind, i, strings.TrimSuffix(prefix, "."), "%v", err)
		return
	}
	v.add(kind, i, prefix+ce.Field, "%s", strings.TrimPrefix(ce.Message, ce.Field+" "))
}

// also names an earlier entry for duplicate messages.
func (v *validator) also(kind string, i int) string {
	file, entry := v.d.Where(kind, i)
	if file != "" {
		return entry + " in " + file
	}
	return entry
}

// unique records key for item i and reports a duplicate of an earlier item.
func (v *validator) unique(seen map[string]int, key, kind string, i int, field, what string) {
	if key == "" {
		return
	}
	if j, ok := seen[key]; ok {
		v.add(kind, i, field, "duplicate %s (also %s)", what, v.also(kind, j))
		return
	}
	seen[key] = i
}

// Validate checks every rule of the dataset format that does not need the
// database. It returns nil or all problems found, as *Error values joined
// with errors.Join (use errors.As to get the first).
func (d *Dataset) Validate() error {
	v := &validator{d: d}
	v.event()
	v.users()
	v.challenges()
	v.activity()
	v.hintUnlocks()
	v.announcements()
	v.pages()
	v.webhooks()
	v.secrets()
	return errors.Join(v.errs...)
}

func (v *validator) users() {
	ids, names, emails, keyIDs, prefixes := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	for i, u := range v.d.Users {
		const k = "users"
		v.unique(ids, u.ID, k, i, "id", "id")
		v.rule(k, i, "", ctf.ValidateUsername(u.Username))
		if j, ok := names[ctf.FoldUsername(u.Username)]; ok && v.d.Users[j].Username != u.Username {
			v.add(k, i, "username", "differs only in case from %s: usernames are unique ignoring case", v.also(k, j))
		} else {
			v.unique(names, ctf.FoldUsername(u.Username), k, i, "username", "username")
		}
		if u.Email != "" {
			v.rule(k, i, "", ctf.ValidateEmail(u.Email))
			v.unique(emails, strings.ToLower(u.Email), k, i, "email", "email")
		}
		if u.Role != "" {
			v.rule(k, i, "", ctf.ValidateRole(u.Role))
		}
		if u.Password != "" && u.PasswordHash != "" {
			v.add(k, i, "password", "give password or passwordHash, not both")
		}
		if u.PasswordHash != "" {
			if err := secret.ValidatePasswordHash(u.PasswordHash); err != nil {
				v.add(k, i, "passwordHash", "%v", err)
			}
		}
		v.rule(k, i, "", ctf.ValidateReason("banReason", u.BanReason))
		if u.BanReason != "" && !u.Banned {
			v.add(k, i, "banReason", "is the reason of a ban: set banned: true, or leave it out")
		}
		v.rule(k, i, "", ctf.ValidateKind(u.Kind))
		switch {
		case u.Kind == ctf.KindAgent:
			v.rule(k, i, "", ctf.ValidateAgent(u.Model, u.Harness, u.Role))
			if u.Owner == "" {
				v.add(k, i, "owner", "an agent needs an owner: the username of the person who runs it")
			} else if u.Owner == u.Username {
				v.add(k, i, "owner", "an agent cannot own itself")
			}
		case u.Owner != "" || u.Model != "" || u.Harness != "":
			v.add(k, i, "kind", "owner, model and harness describe an agent: set kind: agent")
		}
		for j, a := range u.APIKeys {
			f := fmt.Sprintf("apiKeys[%d].", j)
			for _, req := range [][2]string{{"id", a.ID}, {"name", a.Name}, {"keyPrefix", a.KeyPrefix}, {"keyHash", a.KeyHash}} {
				if strings.TrimSpace(req[1]) == "" {
					v.add(k, i, f+req[0], "required")
				}
			}
			if _, dup := keyIDs[a.ID]; dup && a.ID != "" {
				v.add(k, i, f+"id", "duplicate API key id")
			}
			if _, dup := prefixes[a.KeyPrefix]; dup && a.KeyPrefix != "" {
				v.add(k, i, f+"keyPrefix", "duplicate API key prefix")
			}
			keyIDs[a.ID], prefixes[a.KeyPrefix] = i, i
		}
		if tf := u.TwoFactor; tf != nil {
			v.rule(k, i, "twoFactor.", ctf.ValidateTwoFactor(tf.Secret, tf.RecoveryCodes))
		}
	}
}

func (v *validator) challenges() {
	ids, slugs := map[string]int{}, map[string]int{}
	for i, c := range v.d.Challenges {
		const k = "challenges"
		v.unique(ids, c.ID, k, i, "id", "id")
		if strings.TrimSpace(c.Title) == "" {
			v.add(k, i, "title", "required")
		}
		switch {
		case c.Slug == "" && strings.TrimSpace(c.Title) != "":
			v.add(k, i, "slug", "cannot be derived from the title; give one")
		case c.Slug != "":
			v.rule(k, i, "", ctf.ValidateSlug(c.Slug))
		}
		v.unique(slugs, c.Slug, k, i, "slug", "slug")
		v.rule(k, i, "", ctf.ValidateDescription(c.Description))
		for j, cat := range c.Categories {
			if strings.TrimSpace(cat) == "" {
				v.add(k, i, fmt.Sprintf("categories[%d]", j), "must not be empty")
			}
		}
		if len(c.Categories) == 0 {
			v.rule(k, i, "", ctf.ValidateCategories(c.Categories))
		}
		v.rule(k, i, "", ctf.ValidateDifficulty(c.Difficulty))
		v.rule(k, i, "", ctf.ValidatePoints(c.Points))
		v.scoringAndHints(i, &c)
		if len(c.Flags) == 0 && !c.perPlayer() {
			v.add(k, i, "flags", "at least one flag required (or a per-player instance)")
		}
		for j, fl := range c.Flags {
			v.flag(i, fmt.Sprintf("flags[%d].", j), fl)
		}
		v.rule(k, i, "", ctf.ValidateDockerPort(c.DockerPort))
		v.rule(k, i, "", ctf.ValidateFlagFormat(c.FlagFormat))
		if c.Origin != nil {
			v.rule(k, i, "", ctf.ValidateOrigin(c.Origin.Of()))
		}
		if c.Instance != nil {
			_, err := c.Instance.Spec()
			v.rule(k, i, "", err)
			if c.DockerPort != nil && *c.DockerPort != c.Instance.Port {
				v.add(k, i, "dockerPort", "must be the instance's port (%d) or left out", c.Instance.Port)
			}
		}
		for j, r := range c.Requires {
			if r == c.Slug {
				v.add(k, i, fmt.Sprintf("requires[%d]", j), "a challenge cannot require itself")
			}
		}
		if c.File != nil {
			v.file(i, c.File)
		}
	}
	v.cycles(slugs)
}

func (v *validator) flag(i int, f string, fl Flag) {
	const k = "challenges"
	if err := ctf.ValidateFlag(fl.Type, fl.Content); err != nil {
		field := "content"
		if fl.Type != ctf.FlagStatic && fl.Type != ctf.FlagRegex {
			field = "type"
		}
		v.add(k, i, f+field, "%s", strings.TrimPrefix(ctf.ErrorMessage(err), "flag "))
	}
	if fl.Data != "" && fl.Data != "case_insensitive" {
		v.add(k, i, f+"data", "must be case_insensitive or empty, not %q", fl.Data)
	}
}

func (v *validator) file(i int, f *File) {
	const k = "challenges"
	switch {
	case f.URL != "" && (f.Path != "" || f.ContentBase64 != ""):
		v.add(k, i, "file", "give either url or path (or contentBase64), not both")
	case f.URL == "" && f.Path == "" && f.ContentBase64 == "" && len(f.Pack) == 0:
		v.add(k, i, "file", "needs a path, a url or contentBase64")
	case f.URL != "":
		if u, err := url.Parse(f.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			v.add(k, i, "file.url", "must be an http or https URL")
		}
	}
	if err := ctf.ValidateFileName(f.Name); err != nil {
		v.add(k, i, "file.name", "must be a file name without '/' (required with url or contentBase64)")
	}
	if f.SHA256 != "" && !sha256RE.MatchString(f.SHA256) {
		v.add(k, i, "file.sha256", "must be 64 lowercase hexadecimal digits")
	}
}

// cycles reports circular prerequisites among the dataset's challenges.
func (v *validator) cycles(slugs map[string]int) {
	state := make([]int, len(v.d.Challenges)) // 0 new, 1 on stack, 2 done
	var stack []string
	var visit func(i int)
	visit = func(i int) {
		state[i] = 1
		stack = append(stack, v.d.Challenges[i].Slug)
		for _, r := range v.d.Challenges[i].Requires {
			j, ok := slugs[r]
			if !ok || j == i {
				continue
			}
			switch state[j] {
			case 0:
				visit(j)
			case 1:
				start := len(stack) - 1
				for stack[start] != r {
					start--
				}
				path := append(append([]string{}, stack[start:]...), r)
				v.add("challenges", i, "requires", "circular prerequisites: %s", strings.Join(path, " -> "))
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = 2
	}
	for i := range v.d.Challenges {
		if state[i] == 0 {
			visit(i)
		}
	}
}

// Settings returns the event's settings as the domain holds them (times
// at millisecond precision, as stored).
func (e *Event) Settings() ctf.Event {
	return ctf.Event{Name: e.Name, Start: millis(e.Start), End: millis(e.End), Freeze: millis(e.Freeze),
		UnfreezeAtEnd: e.UnfreezeAtEnd, Unfrozen: millis(e.Unfrozen), Practice: e.Practice, FlagFormat: e.FlagFormat}
}

func millis(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	m := ctf.Millis(*t)
	return &m
}

func (v *validator) event() {
	e := v.d.Event
	if e == nil {
		return
	}
	v.rule("event", 0, "", ctf.ValidateEvent(e.Settings()))
	if e.Unfrozen != nil && e.Freeze == nil {
		v.add("event", 0, "unfrozen", "needs a freeze time")
	}
}

func (v *validator) pages() {
	names := map[string]int{}
	for i, p := range v.d.Pages {
		const k = "pages"
		if !slices.Contains(ctf.PageNames, p.Name) {
			v.add(k, i, "name", "must be one of %s", strings.Join(ctf.PageNames, ", "))
			continue
		}
		v.unique(names, p.Name, k, i, "name", "page")
		v.rule(k, i, "", ctf.ValidatePage(p.Name, ctf.CleanPageText(p.Text)))
	}
	if l := v.d.Logo; l != nil && l.Data != nil {
		if _, err := ctf.NewLogo(l.Data, time.Time{}); err != nil {
			v.add("logo", 0, "contentBase64", "%s", strings.TrimPrefix(ctf.ErrorMessage(err), "logo "))
		}
	}
}

func (v *validator) announcements() {
	ids, titles := map[string]int{}, map[string]int{}
	for i, a := range v.d.Announcements {
		const k = "announcements"
		v.unique(ids, a.ID, k, i, "id", "id")
		v.rule(k, i, "", ctf.ValidateAnnouncement(a.Title, a.Body))
		if a.ID == "" && a.Title != "" {
			// Without an id, the title (and createdAt) is the natural key.
			key := a.Title
			if a.CreatedAt != nil {
				key += "\x00" + a.CreatedAt.Format(time.RFC3339Nano)
			}
			v.unique(titles, key, k, i, "title", "announcement without an id (same title and createdAt)")
		}
	}
}

func (v *validator) webhooks() {
	ids, names := map[string]int{}, map[string]int{}
	for i, w := range v.d.Webhooks {
		const k = "webhooks"
		v.unique(ids, w.ID, k, i, "id", "id")
		v.rule(k, i, "", ctf.ValidateWebhook(w.Name, w.Kind, w.URL, w.Secret, w.Events))
		if w.ID == "" {
			// Without an id, the name is the natural key.
			v.unique(names, w.Name, k, i, "name", "webhook without an id (same name)")
		}
	}
}

// secretName is what names a server secret.
var secretName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// secrets checks the server's secrets: a name, and 16 to 64 bytes in hex.
func (v *validator) secrets() {
	for name, value := range v.d.Secrets {
		b, err := hex.DecodeString(value)
		switch {
		case !secretName.MatchString(name):
			v.add("secrets", -1, name, "is not a secret's name (lowercase letters, digits, -)")
		case err != nil || len(b) < 16 || len(b) > 64:
			v.add("secrets", -1, name, "must be 16 to 64 bytes in hex")
		}
	}
}
