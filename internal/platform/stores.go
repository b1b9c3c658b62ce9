package platform

import (
	"context"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// Each area of use cases depends on the part of the database it writes,
// and nothing more: the interfaces below, all implemented by *store.DB
// and its areas (storesOf).
// Reads are answered from the hot state; Scoreboard and Stream need no
// store of their own.

// Store is the database as the Service uses it: every area's part.
type Store interface {
	instanceStore
	coreStore
	accountStore
	keyStore
	agentStore
	playStore
	contentStore
	adminStore
	eventStore
	webhookStore
}

// coreStore is what the core needs of the database: the snapshot and the change log
// it replicates from, the live stream's rows, the group commit of submissions,
// the writes of key and session uses, the webhook producer and the health
// probe.
type coreStore interface {
	Snapshot(ctx context.Context) (*store.Snapshot, error)
	Heads(ctx context.Context) (store.Heads, error)
	Since(ctx context.Context, c store.Cursor) (*store.Delta, error)
	Entities(ctx context.Context, refs []store.ChangeRef) (store.Entities, error)
	SolvesSince(ctx context.Context, after int64, gaps []int64) ([]ctf.Solve, error)
	WrongBaseline(ctx context.Context, userID string, max int64, unseen []int64) (map[string]int64, error)
	RecordSubmissions(ctx context.Context, subs []store.Submission, limit store.RateLimit) ([]store.SubmitOutcome, error)
	StreamAfter(ctx context.Context, after int64, limit int) ([]store.StreamRow, error)
	AppendStreamOnce(ctx context.Context, r store.StreamRow) (bool, error)
	TouchAPIKeys(ctx context.Context, touches []store.Touch) ([]int64, error)
	TouchSessions(ctx context.Context, touches []store.Touch, users []string) ([]int64, error)
	ProduceDeliveries(ctx context.Context, upTo int64, build func(after int64, hooks []store.Webhook) ([]store.NewDelivery, int64, error)) (int, error)
	PruneChanges(ctx context.Context) error
	PruneSignups(ctx context.Context, before time.Time) error
	Secret(ctx context.Context, name string) ([]byte, error)
	Probe(ctx context.Context, write bool) error
}

// accountStore is what Accounts needs: users, 2FA, the login and sign-up
// throttles, sessions.
type accountStore interface {
	CreateUser(ctx context.Context, u ctf.User, audit *ctf.AuditEntry) ([]int64, error)
	UpdateUser(ctx context.Context, id string, up store.UserUpdate, keepSession string, audit *ctf.AuditEntry) (ctf.User, []int64, error)
	Entities(ctx context.Context, refs []store.ChangeRef) (store.Entities, error)
	TwoFactorOf(ctx context.Context, userID string) (store.TwoFactor, error)
	BeginTwoFactor(ctx context.Context, userID, secret string) error
	EnableTwoFactor(ctx context.Context, userID, secret string, step int64, codeHashes []string, keepSession string) (ctf.User, []int64, error)
	DisableTwoFactor(ctx context.Context, userID, keepSession string, audit *ctf.AuditEntry) (ctf.User, []int64, error)
	UseTOTPStep(ctx context.Context, userID string, step int64) (bool, error)
	UseRecoveryCode(ctx context.Context, userID, codeHash string, at time.Time) (bool, error)
	RecoveryCodesLeft(ctx context.Context, userID string) (int, error)
	ReserveLoginAttempt(ctx context.Context, th store.Throttle, at time.Time) (int64, store.LoginFailures, error)
	ForgiveLoginAttempt(ctx context.Context, id int64) error
	ClearLoginFailures(ctx context.Context, account string, before time.Time) error
	ReserveSignup(ctx context.Context, address string, max int, since, at time.Time) (int64, time.Time, error)
	ForgiveSignup(ctx context.Context, id int64) error
	CreateSession(ctx context.Context, s ctf.Session) ([]int64, error)
	RevokeSessions(ctx context.Context, userID, idHash string, all bool, at time.Time) ([]int64, error)
	CreatePasswordReset(ctx context.Context, r store.PasswordReset, msg *store.OutMail, audit *ctf.AuditEntry) error
	PasswordResetUser(ctx context.Context, tokenHash string, now time.Time) (string, error)
	ResetPassword(ctx context.Context, tokenHash, passwordHash string, now time.Time, audit *ctf.AuditEntry) (ctf.User, []int64, error)
	ReplaceRecoveryCodes(ctx context.Context, userID string, codeHashes []string) error
	CreateUserToVerify(ctx context.Context, u ctf.User, v store.EmailVerification, msg store.OutMail) ([]int64, error)
	AddEmailVerification(ctx context.Context, v store.EmailVerification, msg store.OutMail) error
	VerifyEmail(ctx context.Context, tokenHash string, now time.Time) (ctf.User, []int64, error)
	Outbox(ctx context.Context, limit int) ([]store.QueuedMail, error)
}

// keyStore is what Keys needs.
type keyStore interface {
	CreateAPIKey(ctx context.Context, k ctf.APIKey, audit *ctf.AuditEntry) ([]int64, error)
	RevokeAPIKey(ctx context.Context, userID, keyID string, at time.Time, audit *ctf.AuditEntry) (ctf.APIKey, []int64, error)
}

// agentStore is what Agents needs (a run's submissions).
type agentStore interface {
	Submissions(ctx context.Context, userID string) ([]store.SubmissionRecord, error)
}

// playStore is what Play needs: files, reviews and writeups (submissions go
// through the core's group commit).
type playStore interface {
	fileStore
	RecentWrong(ctx context.Context, userID, challengeID string, now time.Time, window time.Duration) (int, time.Time, error)
	PutReview(ctx context.Context, r ctf.Review) (ctf.Review, []int64, error)
	PutWriteup(ctx context.Context, w ctf.Writeup) (ctf.Writeup, []int64, error)
	UnlockHint(ctx context.Context, userID, challengeID string, hintID, requires int) (ctf.HintUnlock, bool, []int64, error)
}

// fileStore reads the challenge files stored in the database.
type fileStore interface {
	FileSize(ctx context.Context, sha string) (int64, error)
	FileChunks(ctx context.Context, sha string, fn func([]byte) error) error
}

// contentStore is what Content needs.
type contentStore interface {
	fileStore
	PutChallenge(ctx context.Context, c ctf.Challenge, file []byte, audit *ctf.AuditEntry) ([]int64, error)
	DeleteChallenge(ctx context.Context, id string, solves int, audit *ctf.AuditEntry) ([]int64, error)
	ModerateWriteup(ctx context.Context, id string, status ctf.WriteupStatus, reason string, audit *ctf.AuditEntry) (ctf.Writeup, []int64, error)
}

// adminStore is what Admin needs: the audit log, and a dataset's load and dump
// (package transfer).
type adminStore interface {
	AuditLog(ctx context.Context, before int64, limit int) ([]ctf.AuditEntry, error)
	SubmissionLog(ctx context.Context, f store.LogFilter) ([]store.LogRecord, error)
	SharedWrongFlags(ctx context.Context, userID string) ([]store.SharedFlag, error)
	AnonymiseUser(ctx context.Context, id, username string, at time.Time, audit *ctf.AuditEntry) (ctf.User, []ctf.APIKey, []int64, error)
	AddAudit(ctx context.Context, a ctf.AuditEntry) error
	InLoad(ctx context.Context, fn func(*store.LoadTx) error) error
	InDump(ctx context.Context, fn func(*store.DumpTx) error) error
}

// eventStore is what Event needs.
type eventStore interface {
	PutEvent(ctx context.Context, e ctf.Event, audit *ctf.AuditEntry) ([]int64, error)
	PostAnnouncement(ctx context.Context, a ctf.Announcement, audit *ctf.AuditEntry) ([]int64, error)
	PutPage(ctx context.Context, p ctf.Page, audit *ctf.AuditEntry) ([]int64, error)
	PutLogo(ctx context.Context, l *ctf.Logo, audit *ctf.AuditEntry) ([]int64, error)
}

// webhookStore is what Webhooks needs.
type webhookStore interface {
	Webhooks(ctx context.Context) ([]store.Webhook, error)
	Webhook(ctx context.Context, id string) (store.Webhook, error)
	CreateWebhook(ctx context.Context, w store.Webhook, audit *ctf.AuditEntry) (store.Webhook, error)
	SetWebhookEnabled(ctx context.Context, id string, enabled bool, audit *ctf.AuditEntry) error
	DeleteWebhook(ctx context.Context, id string, audit *ctf.AuditEntry) error
	Deliveries(ctx context.Context, webhookID string, limit int) ([]store.Delivery, error)
}

// dbStores is the database as Store: *store.DB's own operations and those
// of each of its areas, promoted into one method set.
type dbStores struct {
	*store.DB
	store.Accounts
	store.Play
	store.Content
	store.Hooks
	store.Instances
	store.Mail
}

func storesOf(db *store.DB) dbStores {
	return dbStores{DB: db, Accounts: db.Accounts(), Play: db.Play(), Content: db.Content(), Hooks: db.Hooks(), Instances: db.Instances(),
		Mail: db.Mail()}
}

var _ Store = dbStores{}
