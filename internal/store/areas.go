package store

// The database's operations by area of the platform. *DB keeps what
// concerns the database as a whole: opening, migrating and probing it,
// the change log and the snapshot replicas build their state from, loads,
// dumps and bulk loads, the event's settings, the live stream and files.
// Each area type holds the operations of one part of the platform, over
// the same connections, so that a reader (or an interface) sees one part
// at a time. An area is a small value naming its DB: a named field rather
// than an embedded one, so that it offers its own methods only.

// Accounts are the users, their second factor, the throttles of logins
// and sign-ups, web sessions and API keys.
type Accounts struct{ db *DB }

// Play is the record of submissions: the hot path of solves and wrong
// attempts, and a user's history.
type Play struct{ db *DB }

// Content is what admins and players write beside play: challenges,
// reviews, writeups and their moderation, the event's settings,
// announcements and the audit log.
type Content struct{ db *DB }

// Hooks are the webhooks: the targets, their outbox of deliveries and the
// log of every try.
type Hooks struct{ db *DB }

// Accounts returns the database's accounts.
func (db *DB) Accounts() Accounts { return Accounts{db} }

// Play returns the database's record of submissions.
func (db *DB) Play() Play { return Play{db} }

// Content returns the database's content.
func (db *DB) Content() Content { return Content{db} }

// Hooks returns the database's webhooks.
func (db *DB) Hooks() Hooks { return Hooks{db} }
