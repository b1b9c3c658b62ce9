package web

import (
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestFieldSentences: a refusal about a field reads as a sentence that
// names the field in words, starts with a capital and ends with a stop.
func TestFieldSentences(t *testing.T) {
	for _, tc := range []struct {
		err  *ctf.Error
		want string
	}{
		{ctf.FieldErrorf("title", "must be at most %d characters", 128), "The title must be at most 128 characters."},
		{ctf.FieldErrorf("title", "is required"), "The title is required."},
		{ctf.FieldErrorf("dockerPort", "must be a port number"), "The port must be a port number."},
		{ctf.FieldErrorf("flagFormat", "must be one line of at most 200 characters"), "The flag format must be one line of at most 200 characters."},
		{ctf.FieldErrorf("categories", "needs at least one category"), "The category list needs at least one category."},
		{ctf.FieldErrorf("flags", "needs at least one flag (or a per-player instance)"), "The challenge needs at least one flag (or a per-player instance)."},
		{ctf.FieldErrorf("flags[0]", "flag content must not be empty"), "Flag 1: content must not be empty."},
		{ctf.FieldErrorf("flags[11]", "flag regex \"(\" is not a valid RE2 expression"), "Flag 12: regex \"(\" is not a valid RE2 expression."},
		{ctf.FieldErrorf("requires", "would make a cycle: a -> b -> a"), "The prerequisite list would make a cycle: a -> b -> a."},
		{ctf.FieldErrorf("file", "is larger than the 64 MiB allowed"), "The handout is larger than the 64 MiB allowed."},
		{ctf.FieldErrorf("file.name", "must be a file name without '/'"), "The handout's name must be a file name without '/'."},
		{ctf.FieldErrorf("instance.maxLifetime", "must be from the lifetime (1h) to 24h"), "The per-player instance's max lifetime must be from the lifetime (1h) to 24h."},
		{ctf.FieldErrorf("instance.memroy", "unknown key (did you mean \"memory\"?)"), "The per-player instance's memroy: unknown key (did you mean \"memory\"?)."},
		{ctf.FieldErrorf("challenge", "no challenge has the slug %q", "x"), "No challenge has the slug \"x\"."},
		{ctf.FieldErrorf("someNewField", "must be short"), "The some new field must be short."},
		{ctf.FieldErrorf("scoring.minimum", "must be a whole number from 0 to the initial value (%d)", 500),
			"The minimum value must be a whole number from 0 to the initial value (500)."},
		{ctf.FieldErrorf("scoring.decay", "must be the number of solvers that reach the minimum, from 1 to %d", 1000000),
			"The decay must be the number of solvers that reach the minimum, from 1 to 1000000."},
		{ctf.FieldErrorf("scoring.function", "must be logarithmic or linear, not %q", "cubic"), "The decay function must be logarithmic or linear, not \"cubic\"."},
		{ctf.FieldErrorf("hints", "must be at most %d hints", 20), "The hint list must be at most 20 hints."},
		{ctf.FieldErrorf("hints[0].content", "must not be empty"), "Hint 1: the text must not be empty."},
		{ctf.FieldErrorf("hints[2].cost", "must be a whole number of points from 0 to %d", 1000000), "Hint 3: the cost must be a whole number of points from 0 to 1000000."},
		{ctf.FieldErrorf("hints[1].requires", "must be the id of an earlier hint of the challenge, not %d", 9),
			"Hint 2: the hint it requires must be the id of an earlier hint of the challenge, not 9."},
		{ctf.FieldErrorf("hints[1].id", "%d is the id of an earlier hint: each hint's id is its own", 1), "Hint 2: 1 is the id of an earlier hint: each hint's id is its own."},
		{ctf.FieldErrorf("password", "and its repetition differ"), "The password and its repetition differ."},
		{&ctf.Error{Code: ctf.Invalid, Field: "releaseAt", Message: "releaseAt must be a date and time such as 2026-12-01T18:00 (UTC)"},
			"The release time must be a date and time such as 2026-12-01T18:00 (UTC)."},
		{&ctf.Error{Code: ctf.Invalid, Field: "x", Message: "something else entirely."}, "Something else entirely."},
		{ctf.Errorf(ctf.Conflict, "another challenge has the slug %q", "a"), "Another challenge has the slug \"a\"."},
	} {
		if got := fieldSentence(tc.err); got != tc.want {
			t.Errorf("%q (field %q) reads\n%q, want\n%q", tc.err.Message, tc.err.Field, got, tc.want)
		}
	}
}
