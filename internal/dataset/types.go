// Package dataset reads and writes the event dataset format of docs/product.md
// (YAML or JSON, plus ctfcli challenge.yml files) used by `flagship load` and
// `flagship dump`. It knows nothing of the database: it turns files into a
// validated Dataset and a Dataset back into bytes.
package dataset

import (
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Dataset is a whole event or a part of one. Every key is optional.
type Dataset struct {
	// Event is the event's settings; nil leaves the stored ones alone.
	Event         *Event         `json:"event,omitempty" yaml:"event,omitempty"`
	Users         []User         `json:"users,omitempty" yaml:"users,omitempty"`
	Challenges    []Challenge    `json:"challenges,omitempty" yaml:"challenges,omitempty"`
	Solves        []Solve        `json:"solves,omitempty" yaml:"solves,omitempty"`
	Attempts      []Attempt      `json:"attempts,omitempty" yaml:"attempts,omitempty"`
	Writeups      []Writeup      `json:"writeups,omitempty" yaml:"writeups,omitempty"`
	Reviews       []Review       `json:"reviews,omitempty" yaml:"reviews,omitempty"`
	HintUnlocks   []HintUnlock   `json:"hintUnlocks,omitempty" yaml:"hintUnlocks,omitempty"` // players' unlocks of hints
	Announcements []Announcement `json:"announcements,omitempty" yaml:"announcements,omitempty"`
	Webhooks      []Webhook      `json:"webhooks,omitempty" yaml:"webhooks,omitempty"`
	// Pages are the event's pages (landing, rules, faq); a page left out is
	// left alone.
	Pages []Page `json:"pages,omitempty" yaml:"pages,omitempty"`
	// Logo is the event's logo; nil leaves the stored one alone.
	Logo *Logo `json:"logo,omitempty" yaml:"logo,omitempty"`
	// Sharing are the suspected sharings of per-player flags: a dump's
	// record for the organisers (docs/product.md#instances).
	Sharing []Sharing `json:"sharing,omitempty" yaml:"sharing,omitempty"`
	// Secrets are the server's secrets by name, in hex ("instances" keys
	// the per-player flags): a dump carries them so that an event moved to
	// another database keeps its players' flags. A load sets one only where
	// the database has none.
	Secrets map[string]string `json:"secrets,omitempty" yaml:"secrets,omitempty"`

	// SkipInvalid is set by ReadPathsSkipping: the load leaves out, and
	// reports, a challenge it cannot store rather than fail.
	SkipInvalid bool `json:"-" yaml:"-"`
}

// Event is the event's clock and settings (ctf.Event). The key replaces
// the stored settings as a whole: a time it leaves out is unset. Only the
// unfreeze mark survives a file without one while the freeze time stays the
// same, as it does an admin's edit, so that reloading an event file does not
// freeze again a board an admin unfroze.
type Event struct {
	Name          string     `json:"name,omitempty" yaml:"name,omitempty"`
	Start         *time.Time `json:"start,omitempty" yaml:"start,omitempty"`
	End           *time.Time `json:"end,omitempty" yaml:"end,omitempty"`
	Freeze        *time.Time `json:"freeze,omitempty" yaml:"freeze,omitempty"`
	UnfreezeAtEnd bool       `json:"unfreezeAtEnd,omitempty" yaml:"unfreezeAtEnd,omitempty"`
	Unfrozen      *time.Time `json:"unfrozen,omitempty" yaml:"unfrozen,omitempty"` // when an admin lifted the freeze
	Practice      bool       `json:"practice,omitempty" yaml:"practice,omitempty"` // challenges stay playable after the end
	FlagFormat    string     `json:"flagFormat,omitempty" yaml:"flagFormat,omitempty"`

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}

// Page is one of the event's pages (ctf.PageNames), by name: its Markdown
// text replaces the stored one; an empty text hides the page.
type Page struct {
	Name string `json:"name" yaml:"name"`
	Text string `json:"text" yaml:"text"`

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}

// Logo is the event's logo: a PNG, JPEG, GIF or WebP image of at most
// 256 KiB (ctf.NewLogo), inline.
type Logo struct {
	ContentBase64 string `json:"contentBase64" yaml:"contentBase64"`
	Data          []byte `json:"-" yaml:"-"` // ContentBase64 decoded

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}

// Announcement is a message from the organisers. Its natural key is its
// id; without one, its title (and createdAt, when given), so that loading a
// hand-written file twice does not post its announcements twice.
type Announcement struct {
	ID        string     `json:"id,omitempty" yaml:"id,omitempty"`
	Title     string     `json:"title" yaml:"title"`
	Body      string     `json:"body,omitempty" yaml:"body,omitempty"`           // Markdown
	Challenge string     `json:"challenge,omitempty" yaml:"challenge,omitempty"` // slug (or title) of the challenge it is about
	Author    string     `json:"author,omitempty" yaml:"author,omitempty"`       // username; none when the operator posted it
	CreatedAt *time.Time `json:"createdAt,omitempty" yaml:"createdAt,omitempty"`

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}

// Source tells where an entry was read: the file as named to ReadPaths or
// Decode, and the entry's index in that file's list (-1 for the challenge of a
// ctfcli challenge.yml). Entries built in code have a zero Source. Use
// Dataset.Where or Dataset.Errorf to name an entry in an error message.
type Source struct {
	File  string
	Index int
}

// User is a player or an admin. Username is the natural key.
type User struct {
	ID           string   `json:"id,omitempty" yaml:"id,omitempty"`
	Username     string   `json:"username" yaml:"username"`
	Name         string   `json:"name,omitempty" yaml:"name,omitempty"`
	Email        string   `json:"email,omitempty" yaml:"email,omitempty"`
	Password     string   `json:"password,omitempty" yaml:"password,omitempty"`         // plaintext, hashed on load
	PasswordHash string   `json:"passwordHash,omitempty" yaml:"passwordHash,omitempty"` // as written by dump
	Role         ctf.Role `json:"role,omitempty" yaml:"role,omitempty"`                 // player (default) | admin
	Banned       bool     `json:"banned,omitempty" yaml:"banned,omitempty"`
	BanReason    string   `json:"banReason,omitempty" yaml:"banReason,omitempty"` // with banned
	// EmailUnverified: signed up under --require-email-verification and
	// not confirmed yet (cannot submit until they are).
	EmailUnverified bool       `json:"emailUnverified,omitempty" yaml:"emailUnverified,omitempty"`
	CreatedAt       *time.Time `json:"createdAt,omitempty" yaml:"createdAt,omitempty"`
	// An agent account: kind agent, the username of the person who owns
	// it (listed before it, or in the database), the model and harness.
	Kind    ctf.AccountKind `json:"kind,omitempty" yaml:"kind,omitempty"` // human (default) | agent
	Owner   string          `json:"owner,omitempty" yaml:"owner,omitempty"`
	Model   string          `json:"model,omitempty" yaml:"model,omitempty"`
	Harness string          `json:"harness,omitempty" yaml:"harness,omitempty"`
	APIKeys []APIKey        `json:"apiKeys,omitempty" yaml:"apiKeys,omitempty"`
	// TwoFactor, when given, turns two-factor authentication on with
	// this state; without it a load leaves the user's 2FA as it is.
	TwoFactor *TwoFactor `json:"twoFactor,omitempty" yaml:"twoFactor,omitempty"`

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}

// TwoFactor is a user's two-factor authentication as dump writes it: the
// TOTP secret itself (a login needs it), the unused recovery codes as
// their stored hashes, and the last time step a code was accepted for, so
// that a code used before a dump is not accepted again after the load.
type TwoFactor struct {
	Secret        string   `json:"secret" yaml:"secret"`                                   // base32
	RecoveryCodes []string `json:"recoveryCodes,omitempty" yaml:"recoveryCodes,omitempty"` // SHA-256 hex of each unused code
	LastStep      int64    `json:"lastStep,omitempty" yaml:"lastStep,omitempty"`           // Unix time / 30 s
}

// Webhook is a target the event's public moments are sent to (see
// docs/webhooks.md). Its natural key is its id; without one, its name.
// Its delivery log does not move with it: a loaded webhook gets what
// happens after the load.
type Webhook struct {
	ID        string             `json:"id,omitempty" yaml:"id,omitempty"`
	Name      string             `json:"name" yaml:"name"`
	Kind      ctf.WebhookKind    `json:"kind" yaml:"kind"` // json | discord | slack
	URL       string             `json:"url" yaml:"url"`
	Secret    string             `json:"secret,omitempty" yaml:"secret,omitempty"` // json: signs deliveries (generated when absent)
	Events    []ctf.WebhookEvent `json:"events,omitempty" yaml:"events,omitempty"` // none: all
	Enabled   bool               `json:"enabled" yaml:"enabled"`                   // true when the key is absent
	CreatedAt *time.Time         `json:"createdAt,omitempty" yaml:"createdAt,omitempty"`

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}

// APIKey is the metadata and hash of an API key; the secret is never stored.
type APIKey struct {
	ID         string     `json:"id" yaml:"id"`
	Name       string     `json:"name" yaml:"name"`
	KeyPrefix  string     `json:"keyPrefix" yaml:"keyPrefix"`
	KeyHash    string     `json:"keyHash" yaml:"keyHash"`
	CreatedAt  *time.Time `json:"createdAt,omitempty" yaml:"createdAt,omitempty"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty" yaml:"lastUsedAt,omitempty"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty" yaml:"revokedAt,omitempty"`
	ReadOnly   bool       `json:"readOnly,omitempty" yaml:"readOnly,omitempty"` // cannot submit
}

// Flag is one accepted flag of a challenge.
type Flag struct {
	Type    ctf.FlagKind `json:"type" yaml:"type"`                     // static | regex
	Content string       `json:"content" yaml:"content"`               // the flag, or an RE2 pattern (anchored when checked)
	Data    string       `json:"data,omitempty" yaml:"data,omitempty"` // "case_insensitive" or empty
}

// Challenge is one challenge. Slug is the natural key.
type Challenge struct {
	ID             string         `json:"id,omitempty" yaml:"id,omitempty"`
	Slug           string         `json:"slug" yaml:"slug"`
	Title          string         `json:"title" yaml:"title"`
	Description    string         `json:"description,omitempty" yaml:"description,omitempty"`
	Categories     []string       `json:"categories" yaml:"categories"`
	Difficulty     ctf.Difficulty `json:"difficulty" yaml:"difficulty"`               // Easy | Medium | Hard | Insane
	Points         int            `json:"points" yaml:"points"`                       // a dynamic challenge's initial value
	Scoring        *Scoring       `json:"scoring,omitempty" yaml:"scoring,omitempty"` // nil: static
	Type           string         `json:"type,omitempty" yaml:"type,omitempty"`       // free string, default "standard"
	Flags          []Flag         `json:"flags" yaml:"flags"`
	Hints          []Hint         `json:"hints,omitempty" yaml:"hints,omitempty"`
	Requires       []string       `json:"requires,omitempty" yaml:"requires,omitempty"` // prerequisite slugs (titles are resolved to slugs by the parser when they match a challenge of the same dataset)
	Author         string         `json:"author,omitempty" yaml:"author,omitempty"`     // creator's username
	File           *File          `json:"file,omitempty" yaml:"file,omitempty"`
	HasInstance    bool           `json:"hasInstance,omitempty" yaml:"hasInstance,omitempty"`
	DockerPort     *int           `json:"dockerPort,omitempty" yaml:"dockerPort,omitempty"`
	Instance       *Instance      `json:"instance,omitempty" yaml:"instance,omitempty"` // per-player containers: hasInstance and dockerPort follow it
	Hidden         bool           `json:"hidden,omitempty" yaml:"hidden,omitempty"`
	Tags           []string       `json:"tags,omitempty" yaml:"tags,omitempty"`
	ConnectionInfo string         `json:"connectionInfo,omitempty" yaml:"connectionInfo,omitempty"`
	FlagFormat     string         `json:"flagFormat,omitempty" yaml:"flagFormat,omitempty"` // the flag's shape as players are told it
	Origin         *Origin        `json:"origin,omitempty" yaml:"origin,omitempty"`         // the benchmark task it was read from
	ReleaseAt      *time.Time     `json:"releaseAt,omitempty" yaml:"releaseAt,omitempty"`   // a scheduled release: out of sight until then
	CreatedAt      *time.Time     `json:"createdAt,omitempty" yaml:"createdAt,omitempty"`

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
	// Notes are what the reader of a benchmark task could not carry over
	// ("files given by a script: not loaded"), for the load report; not
	// encoded, not stored.
	Notes []string `json:"-" yaml:"-"`
}

// Solve is a correct submission. It also counts as one checked attempt.
type Solve struct {
	ID        string     `json:"id,omitempty" yaml:"id,omitempty"`
	User      string     `json:"user" yaml:"user"`           // username
	Challenge string     `json:"challenge" yaml:"challenge"` // slug
	At        *time.Time `json:"at,omitempty" yaml:"at,omitempty"`
	Flag      string     `json:"flag,omitempty" yaml:"flag,omitempty"` // as accepted (trimmed)
	Door      ctf.Door   `json:"door,omitempty" yaml:"door,omitempty"` // the front door that made it: api, web, mcp
	Key       string     `json:"key,omitempty" yaml:"key,omitempty"`   // the id of the API key that made it
	// Practice marks a solve made after the end in practice mode: it
	// counts in no public aggregate.
	Practice bool `json:"practice,omitempty" yaml:"practice,omitempty"`

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}

// Attempt is a wrong submission.
type Attempt struct {
	ID        string     `json:"id,omitempty" yaml:"id,omitempty"`
	User      string     `json:"user" yaml:"user"`
	Challenge string     `json:"challenge" yaml:"challenge"`
	At        *time.Time `json:"at,omitempty" yaml:"at,omitempty"`
	Flag      string     `json:"flag,omitempty" yaml:"flag,omitempty"`
	Door      ctf.Door   `json:"door,omitempty" yaml:"door,omitempty"`
	Key       string     `json:"key,omitempty" yaml:"key,omitempty"`
	Practice  bool       `json:"practice,omitempty" yaml:"practice,omitempty"` // made after the end in practice mode

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}

// Writeup is a user's writeup of a challenge they solved.
type Writeup struct {
	ID        string            `json:"id,omitempty" yaml:"id,omitempty"`
	User      string            `json:"user" yaml:"user"`
	Challenge string            `json:"challenge" yaml:"challenge"`
	Title     string            `json:"title" yaml:"title"`
	Content   string            `json:"content" yaml:"content"`
	Status    ctf.WriteupStatus `json:"status,omitempty" yaml:"status,omitempty"` // pending (default) | approved | rejected
	Reason    string            `json:"reason,omitempty" yaml:"reason,omitempty"` // why it was rejected, shown to its author
	Images    []string          `json:"images,omitempty" yaml:"images,omitempty"`
	CreatedAt *time.Time        `json:"createdAt,omitempty" yaml:"createdAt,omitempty"`
	UpdatedAt *time.Time        `json:"updatedAt,omitempty" yaml:"updatedAt,omitempty"`

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}

// Review is a user's rating of a challenge they solved.
type Review struct {
	ID         string     `json:"id,omitempty" yaml:"id,omitempty"`
	User       string     `json:"user" yaml:"user"`
	Challenge  string     `json:"challenge" yaml:"challenge"`
	Stars      int        `json:"stars" yaml:"stars"`           // 1..5
	Difficulty int        `json:"difficulty" yaml:"difficulty"` // 1..10
	CreatedAt  *time.Time `json:"createdAt,omitempty" yaml:"createdAt,omitempty"`

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}
