package ctf

import (
	"crypto/sha256"
	"regexp"
	"time"
)

// Difficulty is how hard a challenge is, as its organiser rates it.
type Difficulty string

// Difficulty names, as the contract spells them.
const (
	Easy   Difficulty = "Easy"
	Medium Difficulty = "Medium"
	Hard   Difficulty = "Hard"
	Insane Difficulty = "Insane"
)

// Difficulties are the difficulties from the easiest, in the order forms
// and filters list them.
var Difficulties = []Difficulty{Easy, Medium, Hard, Insane}

// Role is what an account may do: play, or administer the event.
type Role string

// Roles.
const (
	RolePlayer Role = "player"
	RoleAdmin  Role = "admin"
)

// IsAdmin reports whether r is RoleAdmin, for views that show admins
// more; whether a caller may act as one is the platform's to say (a
// banned admin may not).
func (r Role) IsAdmin() bool { return r == RoleAdmin }

// AccountKind says who plays an account: a person, or an AI agent owned
// by a person (docs/product.md#agents).
type AccountKind string

// Account kinds.
const (
	KindHuman AccountKind = "human"
	KindAgent AccountKind = "agent"
)

// Door is the front door a submission came through.
type Door string

// Front doors, recorded with each submission.
const (
	DoorAPI Door = "api" // the public REST API with an API key
	DoorWeb Door = "web" // the web app: its forms, or the API with its session cookie
	DoorMCP Door = "mcp" // the MCP endpoint
	// DoorImport is how a run names the door of a submission loaded from a
	// dataset, which is stored without one ("").
	DoorImport Door = "import"
)

// WriteupStatus is where a writeup stands in the organisers' review.
type WriteupStatus string

// Writeup statuses.
const (
	WriteupPending  WriteupStatus = "pending"
	WriteupApproved WriteupStatus = "approved"
	WriteupRejected WriteupStatus = "rejected"
)

// MaxFlagBytes is the longest flag a submission may carry, after trimming.
const MaxFlagBytes = 1024

// User is an account.
type User struct {
	ID           string
	Username     string
	Name         string // may be empty
	Email        string // may be empty
	Image        string // may be empty
	PasswordHash string
	Role         Role
	Banned       bool
	BanReason    string // why the user is banned, as the admin gave it ("" for none); only while Banned
	TwoFactor    bool   // TOTP is on: logging in with a password asks for a code
	// EmailUnverified: signed up under serve --require-email-verification
	// and the address not confirmed yet (such an account cannot submit).
	EmailUnverified bool
	CreatedAt       time.Time
	// An agent account (Kind KindAgent) is an AI agent that plays under its
	// own keys; OwnerID is the person who made it, Model and Harness say
	// what plays. People have Kind KindHuman ("" reads as human).
	Kind    AccountKind
	OwnerID string
	Model   string
	Harness string
}

// IsAgent reports whether u is an AI agent's account.
func (u *User) IsAgent() bool { return u.Kind == KindAgent }

// IsPlayer reports whether u's own row lets its solves count in public
// aggregates; an agent's also need its owner not banned, which the
// platform's hot state adds.
func (u *User) IsPlayer() bool { return u.Role != RoleAdmin && !u.Banned }

// Flag is one accepted answer of a challenge.
type Flag struct {
	Kind            FlagKind
	Content         string
	CaseInsensitive bool
	re              *regexp.Regexp
	digest          [sha256.Size]byte // of a static flag, lowercased if case-insensitive
}

// Challenge is a challenge as the organiser configured it.
type Challenge struct {
	ID          string
	Slug        string
	Title       string
	Description string
	Categories  []string
	Difficulty  Difficulty
	Points      int
	Type        string
	Flags       []Flag
	Requires    []string // prerequisite challenge ids
	AuthorID    string   // empty when none
	FileName    string
	FileSHA256  string // set when the bytes are stored in the database
	FileURL     string // set when the file is a link elsewhere
	HasInstance bool
	DockerPort  *int
	// Instance, when set, is how the challenge's per-player instances run
	// (HasInstance is then true and DockerPort its port).
	Instance *InstanceSpec
	Hidden   bool
	// ReleaseAt, when set, keeps the challenge out of sight until then;
	// it appears at that instant on every replica.
	ReleaseAt      *time.Time
	Tags           []string
	ConnectionInfo string
	// FlagFormat is the flag's shape as players are told it
	// ("csawctf{...}"); empty: derived (FlagFormatOf).
	FlagFormat string
	// Origin is where a benchmark task was loaded from; zero for the
	// organiser's own challenges.
	Origin Origin
	// Scoring is how the value follows the solves (static: Points); a
	// dynamic challenge's Points is its scoring's initial value.
	Scoring Scoring
	// Hints are the challenge's hints, in the order players see them.
	Hints     []Hint
	CreatedAt time.Time
}

// The benchmarks whose checkouts Flagship loads as they are.
const (
	BenchmarkNYU     = "nyu"
	BenchmarkCybench = "cybench"
)

// Origin is where a challenge came from: a task of a benchmark's checkout
// (Benchmark, Path, the task's directory relative to the checkout's root,
// slash-separated, and Name), or the organiser's own (zero). Two origins
// are the same task when benchmark and path are.
type Origin struct {
	Benchmark string
	Path      string
	// Name is the task's name in the benchmark's own results (NYU's
	// canonical name, 2021q-web-poem_collection), which exports use.
	Name string
}

// SameTask reports whether o and p are the same task (or both the
// organiser's own): the same benchmark and path, whatever the name.
func (o Origin) SameTask(p Origin) bool {
	return o.Benchmark == p.Benchmark && o.Path == p.Path
}

// String names the origin for people: "NYU CTF Bench task
// 2023/CSAW-Quals/rev/rox", or "the organiser's own challenge".
func (o Origin) String() string {
	switch o.Benchmark {
	case "":
		return "the organiser's own challenge"
	case BenchmarkNYU:
		return "NYU CTF Bench task " + o.Path
	case BenchmarkCybench:
		return "Cybench task " + o.Path
	}
	return o.Benchmark + " task " + o.Path
}

// ReleasedAt reports whether c's release time, if any, has come.
func (c *Challenge) ReleasedAt(now time.Time) bool {
	return c.ReleaseAt == nil || !now.Before(*c.ReleaseAt)
}

// Announcement is a message from the organisers to the players.
type Announcement struct {
	ID          string
	Title       string
	Body        string // Markdown
	ChallengeID string // the challenge it is about, "" for none
	AuthorID    string // "" when the operator's CLI posted it
	CreatedAt   time.Time
}

// Solve is a user's accepted submission of a challenge.
type Solve struct {
	Seq         int64 // database order, breaks ties between equal times
	ID          string
	UserID      string
	ChallengeID string
	Flag        string
	At          time.Time
	// Practice marks a solve made after the end in practice mode: it
	// counts in no public aggregate.
	Practice bool
}

// Review is a user's rating of a solved challenge.
type Review struct {
	ID          string
	UserID      string
	ChallengeID string
	Stars       int
	Difficulty  int
	CreatedAt   time.Time
}

// Writeup is a user's account of how they solved a challenge.
type Writeup struct {
	ID          string
	UserID      string
	ChallengeID string
	Title       string
	Content     string
	Images      []string
	Status      WriteupStatus
	Reason      string // why it was rejected, shown to its author
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// APIKey is the stored form of an API key; the secret is never kept.
type APIKey struct {
	ID         string
	UserID     string
	Name       string
	Prefix     string
	Hash       string // hex SHA-256 of the whole key
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	ReadOnly   bool // reads what its user may read; cannot submit
}

// Session is a server-side web session; the cookie holds a secret whose
// SHA-256 is the session's id.
type Session struct {
	IDHash     string
	UserID     string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastSeenAt time.Time
	UserAgent  string
	RevokedAt  *time.Time
}

// Session lifetimes (docs/product.md#sessions): at most 30 days, and 7 days idle.
const (
	SessionLifetime = 30 * 24 * time.Hour
	SessionIdle     = 7 * 24 * time.Hour
)

// SessionCookie is the web session's cookie over plain http: the web app
// sets it, and the public API takes it too (the contract's third means of
// authentication). SessionCookieName is its name in use.
const SessionCookie = "flagship_session"

// SessionCookieName is the session cookie's name, for the web app and the
// public API alike: CookieName of SessionCookie.
func SessionCookieName(secure bool) string { return CookieName(SessionCookie, secure) }

// CookieName is the name of a cookie of the platform's own host. When the
// platform is served over https (secure) it carries the __Host- prefix: a
// browser then keeps it only if it is Secure, for Path=/ and without a
// Domain, as set by this very host, so a sibling subdomain (where a
// challenge may run, over plain http) can neither set it nor shadow it.
// Over plain http a browser would refuse the prefix (it requires Secure).
func CookieName(name string, secure bool) string {
	if secure {
		return "__Host-" + name
	}
	return name
}

// Active reports whether s still authenticates at now.
func (s *Session) Active(now time.Time) bool {
	return s.RevokedAt == nil && now.Before(s.ExpiresAt) && now.Sub(s.LastSeenAt) < SessionIdle
}

// MaxActiveAPIKeys is how many unrevoked keys a user may hold.
const MaxActiveAPIKeys = 20

// AuditEntry is an admin action as the audit log keeps it.
type AuditEntry struct {
	Seq     int64
	ActorID string // "" for the operator's CLI
	Actor   string // the actor's username, or "operator"
	Action  string // e.g. "challenge.update", "user.ban"
	Target  string // what it acted on: a slug, a username, an id
	Detail  string // JSON with the specifics, may be empty
	At      time.Time
}
