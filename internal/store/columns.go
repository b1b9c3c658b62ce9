package store

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Each table that more than one path writes or reads has its columns
// listed once, with the function that turns a value into them (and, for
// reads, back): the single-row writes, the load, BulkLoad, the snapshot
// and the dump all use that list, so adding a column is one edit here.

// insertSQL is the INSERT of one row of cols into table.
func insertSQL(table string, cols []string) string {
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" +
		strings.Repeat("?, ", len(cols)-1) + "?)"
}

// upsertSQL is the INSERT of one row of cols into table that, on a
// conflict over the unique key, updates every other column but keep.
func upsertSQL(table string, cols []string, key string, keep ...string) string {
	var b strings.Builder
	b.WriteString(insertSQL(table, cols))
	b.WriteString(" ON CONFLICT (" + key + ") DO UPDATE SET ")
	first := true
	keys := strings.Split(key, ", ")
	for _, c := range cols {
		if contains(keys, c) || contains(keep, c) {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(c + " = excluded." + c)
	}
	return b.String()
}

// rowUpdate is the UPDATE of one row of a table by its key that sets
// every column of a list but the key and those kept: the changes a
// single-row write makes to a row that exists, from the row's values in
// the list's order (args).
type rowUpdate struct {
	sql string
	set []int // the indexes in the list of the columns set, in order
	key int   // the index in the list of the key
}

func newRowUpdate(table string, cols []string, key string, keep ...string) rowUpdate {
	u := rowUpdate{key: slices.Index(cols, key)}
	var sets []string
	for i, c := range cols {
		if c == key || contains(keep, c) {
			continue
		}
		u.set = append(u.set, i)
		sets = append(sets, c+" = ?")
	}
	u.sql = "UPDATE " + table + " SET " + strings.Join(sets, ", ") + " WHERE " + key + " = ?"
	return u
}

// args are the UPDATE's arguments from a row's values in the list's order.
func (u rowUpdate) args(values []any) []any {
	out := make([]any, 0, len(u.set)+1)
	for _, i := range u.set {
		out = append(out, values[i])
	}
	return append(out, values[u.key])
}

// selectList is cols as a SELECT reads them, the nullable ones (text)
// read as "" for NULL.
func selectList(cols []string, nullable ...string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c
		if contains(nullable, c) {
			out[i] = "COALESCE(" + c + ", '')"
		}
	}
	return strings.Join(out, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// userWriteColumns are a user row's columns as written, in the order of
// userValues (the two-factor state has writes of its own).
var userWriteColumns = []string{"id", "username", "name", "email", "email_lower", "image", "password_hash", "role", "banned",
	"created_at", "ban_reason", "kind", "owner_id", "model", "harness", "email_unverified"}

// userColumns are a user row's columns as read, in the order of scanUser:
// those written but email_lower (the unique index's, never read back),
// then the two-factor flag.
var userColumns = selectList(append(slices.DeleteFunc(slices.Clone(userWriteColumns), func(c string) bool { return c == "email_lower" }),
	"two_factor"), "email", "owner_id")

var (
	// selectUsers reads user rows for scanUser.
	selectUsers = "SELECT " + userColumns + " FROM users "
	// createUserSQL inserts a new user.
	createUserSQL = insertSQL("users", userWriteColumns)
	// loadUserSQL creates or updates a user by username; a stored one
	// keeps its id and image.
	loadUserSQL = upsertSQL("users", userWriteColumns, "username", "id", "image")
)

// userValues is u as stored, in userWriteColumns' order: without a role a
// player, without a kind a person.
func userValues(u ctf.User) []any {
	role := u.Role
	if role == "" {
		role = ctf.RolePlayer
	}
	return []any{u.ID, u.Username, u.Name, nullString(u.Email), nullString(strings.ToLower(u.Email)), u.Image, u.PasswordHash,
		role, u.Banned, ms(u.CreatedAt), banReason(u), kindOf(u), nullString(u.OwnerID), u.Model, u.Harness, u.EmailUnverified}
}

// banReason is u's ban reason as stored: none unless banned.
func banReason(u ctf.User) string {
	if !u.Banned {
		return ""
	}
	return u.BanReason
}

// keyWriteColumns are an API key row's columns, in the order of keyValues
// and scanKey.
var keyWriteColumns = strings.Split(keyColumns, ", ")

var (
	// createKeySQL inserts a new API key.
	createKeySQL = insertSQL("api_keys", keyWriteColumns)
	// loadKeySQL creates or updates an API key by id; its user, prefix
	// and hash never change.
	loadKeySQL = upsertSQL("api_keys", keyWriteColumns, "id", "user_id", "key_prefix", "key_hash")
)

func keyValues(k ctf.APIKey) []any {
	return []any{k.ID, k.UserID, k.Name, k.Prefix, k.Hash, ms(k.CreatedAt), nullMs(k.LastUsedAt), nullMs(k.RevokedAt), k.ReadOnly}
}

// solveColumns are a solve row's columns as written, in the order of
// solveValues (seq is the database's).
var solveColumns = []string{"id", "user_id", "challenge_id", "flag", "solved_at", "door", "key_id", "practice"}

// loadSolveSQL creates or replaces the solve of a user and a challenge; a
// stored one keeps its id.
var loadSolveSQL = upsertSQL("solves", solveColumns, "user_id, challenge_id", "id")

// attemptColumns are an attempt row's columns as written, in the order of
// attemptValues (seq is the database's).
var attemptColumns = []string{"id", "user_id", "challenge_id", "flag", "created_at", "door", "key_id", "practice"}

func attemptValues(a Attempt) []any {
	return []any{a.ID, a.UserID, a.ChallengeID, a.Flag, ms(a.At), a.Door, nullString(a.KeyID), a.Practice}
}

// writeupWriteColumns are a writeup row's columns, in the order of
// writeupValues and scanWriteup.
var writeupWriteColumns = strings.Split(writeupColumns, ", ")

var (
	// createWriteupSQL inserts a new writeup.
	createWriteupSQL = insertSQL("writeups", writeupWriteColumns)
	// updateWriteup replaces a writeup by id but for whose, of which
	// challenge and when it was first written.
	updateWriteup = newRowUpdate("writeups", writeupWriteColumns, "id", "user_id", "challenge_id", "created_at")
	// loadWriteupSQL creates or replaces the writeup of a user and a
	// challenge; a stored one keeps its id.
	loadWriteupSQL = upsertSQL("writeups", writeupWriteColumns, "user_id, challenge_id", "id")
)

// writeupValues is w as stored: its images a JSON list, never null.
func writeupValues(w ctf.Writeup) []any {
	images := w.Images
	if images == nil {
		images = []string{}
	}
	ij, _ := json.Marshal(images)
	return []any{w.ID, w.UserID, w.ChallengeID, w.Title, w.Content, string(ij), w.Status, w.Reason, ms(w.CreatedAt), ms(w.UpdatedAt)}
}

// reviewColumns are a review row's columns, in the order of reviewValues.
var reviewColumns = []string{"id", "user_id", "challenge_id", "stars", "difficulty", "created_at"}

var (
	// selectReviews reads review rows in reviewColumns' order.
	selectReviews = "SELECT " + strings.Join(reviewColumns, ", ") + " FROM reviews "
	// createReviewSQL inserts a new review.
	createReviewSQL = insertSQL("reviews", reviewColumns)
	// updateReview changes a review's stars and difficulty by id (the rest
	// is whose, of which challenge and when).
	updateReview = newRowUpdate("reviews", reviewColumns, "id", "user_id", "challenge_id", "created_at")
	// loadReviewSQL creates or replaces the review of a user and a
	// challenge; a stored one keeps its id.
	loadReviewSQL = upsertSQL("reviews", reviewColumns, "user_id, challenge_id", "id")
)

func reviewValues(r ctf.Review) []any {
	return []any{r.ID, r.UserID, r.ChallengeID, r.Stars, r.Difficulty, ms(r.CreatedAt)}
}

// announcementColumns are an announcement row's columns, in the order of
// announcementValues and of queryAnnouncements' scan.
var announcementColumns = []string{"id", "title", "body", "challenge_id", "author_id", "created_at"}

var (
	// selectAnnouncements reads announcement rows; one about no
	// challenge, or by no author, reads "" for it.
	selectAnnouncements = "SELECT " + selectList(announcementColumns, "challenge_id", "author_id") + " FROM announcements "
	// postAnnouncementSQL inserts a new announcement.
	postAnnouncementSQL = insertSQL("announcements", announcementColumns)
	// loadAnnouncementSQL creates or replaces an announcement by id.
	loadAnnouncementSQL = upsertSQL("announcements", announcementColumns, "id")
)

// announcementValues is a as stored: no challenge or author is NULL.
func announcementValues(a ctf.Announcement) []any {
	return []any{a.ID, a.Title, a.Body, nullString(a.ChallengeID), nullString(a.AuthorID), ms(a.CreatedAt)}
}

// webhookWriteColumns are a webhook row's columns, in the order of
// webhookValues and of queryWebhooks' scan.
var webhookWriteColumns = strings.Split(webhookColumns, ", ")

var (
	// createWebhookSQL inserts a new webhook.
	createWebhookSQL = insertSQL("webhooks", webhookWriteColumns)
	// loadWebhookSQL creates or replaces a webhook by id; a stored one
	// keeps its place in the stream (after_seq).
	loadWebhookSQL = upsertSQL("webhooks", webhookWriteColumns, "id", "after_seq")
)

// webhookValues is w as stored: its events a JSON list (a list of
// strings always marshals).
func webhookValues(w Webhook) []any {
	events, _ := json.Marshal(w.Events)
	return []any{w.ID, w.Name, w.Kind, w.URL, w.Secret, string(events), w.Enabled, ms(w.CreatedAt), w.AfterSeq}
}

// eventColumns are the event row's columns, in the order of eventValues
// and (but the id) of queryEvent's scan. There is one row, id 1.
var eventColumns = []string{"id", "name", "starts_at", "ends_at", "freeze_at", "unfreeze_at_end", "unfrozen_at", "practice", "flag_format"}

var (
	// selectEvent reads the event's row but its id.
	selectEvent = "SELECT " + strings.Join(eventColumns[1:], ", ") + " FROM event WHERE id = 1"
	// putEventSQL creates or replaces the event's row.
	putEventSQL = upsertSQL("event", eventColumns, "id")
)

// eventValues is e as stored: a time not set is NULL.
func eventValues(e ctf.Event) []any {
	return []any{1, e.Name, nullMs(e.Start), nullMs(e.End), nullMs(e.Freeze), e.UnfreezeAtEnd, nullMs(e.Unfrozen), e.Practice, e.FlagFormat}
}
