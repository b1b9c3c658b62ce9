package dataset

import (
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// activity validates solves, attempts, writeups and reviews: the user and
// challenge they name are only checked for presence here (they may live in the
// database); the loader checks that they exist.
// pair is a (user, challenge) natural key.
type pair struct{ user, challenge string }

func (v *validator) activity() {
	ids, solved := map[string]int{}, map[pair]int{}
	for i, s := range v.d.Solves {
		const k = "solves"
		v.unique(ids, s.ID, k, i, "id", "id")
		v.userChallenge(k, i, s.User, s.Challenge)
		v.submittedFlag(k, i, s.Flag)
		v.door(k, i, s.Door)
		if s.User == "" || s.Challenge == "" {
			continue
		}
		p := pair{s.User, s.Challenge}
		if j, ok := solved[p]; ok {
			v.add(k, i, "challenge", "duplicate solve: user %q already solved %q (%s)", s.User, s.Challenge, v.also(k, j))
			continue
		}
		solved[p] = i
	}

	ids = map[string]int{}
	for i, a := range v.d.Attempts {
		const k = "attempts"
		v.unique(ids, a.ID, k, i, "id", "id")
		v.userChallenge(k, i, a.User, a.Challenge)
		v.submittedFlag(k, i, a.Flag)
		v.door(k, i, a.Door)
	}

	ids = map[string]int{}
	written := map[pair]int{}
	for i, w := range v.d.Writeups {
		const k = "writeups"
		v.unique(ids, w.ID, k, i, "id", "id")
		v.userChallenge(k, i, w.User, w.Challenge)
		v.rule(k, i, "", ctf.ValidateWriteup(w.Title, w.Content, w.Images))
		if w.Status != "" && !ctf.ValidWriteupStatus(w.Status) {
			v.add(k, i, "status", "must be pending, approved or rejected, not %q", w.Status)
		}
		v.order(k, i, "updatedAt", w.CreatedAt, w.UpdatedAt)
		v.onePerUser(written, pair{w.User, w.Challenge}, k, i, "writeup")
	}

	ids = map[string]int{}
	for i, sh := range v.d.Sharing {
		const k = "sharing"
		v.unique(ids, sh.ID, k, i, "id", "id")
		v.userChallenge(k, i, sh.User, sh.Challenge)
		if strings.TrimSpace(sh.Owner) == "" {
			v.add(k, i, "owner", "required")
		} else if sh.Owner == sh.User {
			v.add(k, i, "owner", "must be another player than user")
		}
		v.door(k, i, sh.Door)
	}

	ids = map[string]int{}
	reviewed := map[pair]int{}
	for i, r := range v.d.Reviews {
		const k = "reviews"
		v.unique(ids, r.ID, k, i, "id", "id")
		v.userChallenge(k, i, r.User, r.Challenge)
		v.rule(k, i, "", ctf.ValidateReview(r.Stars, r.Difficulty))
		v.onePerUser(reviewed, pair{r.User, r.Challenge}, k, i, "review")
	}
}

func (v *validator) userChallenge(kind string, i int, user, challenge string) {
	if strings.TrimSpace(user) == "" {
		v.add(kind, i, "user", "required")
	}
	if strings.TrimSpace(challenge) == "" {
		v.add(kind, i, "challenge", "required")
	}
}

func (v *validator) submittedFlag(kind string, i int, flag string) {
	if len(flag) > ctf.MaxFlagBytes {
		v.add(kind, i, "flag", "longer than %d bytes", ctf.MaxFlagBytes)
	}
}

// onePerUser reports a second writeup or review of a user for a challenge.
func (v *validator) onePerUser(seen map[pair]int, p pair, kind string, i int, what string) {
	if p.user == "" || p.challenge == "" {
		return
	}
	if j, ok := seen[p]; ok {
		v.add(kind, i, "challenge", "user %q already has a %s of %q (%s)", p.user, what, p.challenge, v.also(kind, j))
		return
	}
	seen[p] = i
}

func (v *validator) order(kind string, i int, field string, before, after *time.Time) {
	if before != nil && after != nil && after.Before(*before) {
		v.add(kind, i, field, "is before createdAt")
	}
}

// door checks the front door a submission names, if any.
func (v *validator) door(kind string, i int, door ctf.Door) {
	switch door {
	case "", ctf.DoorAPI, ctf.DoorWeb, ctf.DoorMCP:
	default:
		v.add(kind, i, "door", "must be api, web or mcp, not %q", door)
	}
}
