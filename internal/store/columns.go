package store

import (
	"encoding/json"
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
	"created_at", "kind", "owner_id", "model", "harness"}

// loadUserSQL creates or updates a user by username; a stored one keeps
// its id and image.
var loadUserSQL = upsertSQL("users", userWriteColumns, "username", "id", "image")

// userValues is u as stored, in userWriteColumns' order: without a role a
// player, without a kind a person.
func userValues(u ctf.User) []any {
	role := u.Role
	if role == "" {
		role = ctf.RolePlayer
	}
	return []any{u.ID, u.Username, u.Name, nullString(u.Email), nullString(strings.ToLower(u.Email)), u.Image, u.PasswordHash,
		role, u.Banned, ms(u.CreatedAt), kindOf(u), nullString(u.OwnerID), u.Model, u.Harness}
}

// keyWriteColumns are an API key row's columns, in the order of keyValues
// and scanKey.
var keyWriteColumns = strings.Split(keyColumns, ", ")

// loadKeySQL creates or updates an API key by id; its user, prefix and
// hash never change.
var loadKeySQL = upsertSQL("api_keys", keyWriteColumns, "id", "user_id", "key_prefix", "key_hash")

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

// loadWriteupSQL creates or replaces the writeup of a user and a
// challenge; a stored one keeps its id.
var loadWriteupSQL = upsertSQL("writeups", writeupWriteColumns, "user_id, challenge_id", "id")

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

// loadReviewSQL creates or replaces the review of a user and a challenge;
// a stored one keeps its id.
var loadReviewSQL = upsertSQL("reviews", reviewColumns, "user_id, challenge_id", "id")

func reviewValues(r ctf.Review) []any {
	return []any{r.ID, r.UserID, r.ChallengeID, r.Stars, r.Difficulty, ms(r.CreatedAt)}
}
