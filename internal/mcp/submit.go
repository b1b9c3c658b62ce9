package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/httpx"
	"github.com/flagshipctf/flagship/internal/platform"
)

type submitInput struct {
	Slug string `json:"slug" jsonschema:"the challenge's slug"`
	Flag string `json:"flag" jsonschema:"the flag exactly as found, e.g. flag{...}; surrounding spaces are ignored"`
}

// Outcomes of submit_flag: one word an agent can branch on.
const (
	outcomeCorrect       = "correct"
	outcomeWrong         = "wrong"
	outcomeAlreadySolved = "already_solved"
	outcomeLocked        = "locked"
	outcomeRateLimited   = "rate_limited"
	outcomeNotFound      = "not_found"
)

type badgeOutput struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Icon  string `json:"icon"`
}

type submitOutput struct {
	Outcome           string        `json:"outcome"`
	Message           string        `json:"message" jsonschema:"one sentence saying what happened and what to do next"`
	Points            int           `json:"points" jsonschema:"points earned, with correct"`
	NewBadges         []badgeOutput `json:"newBadges" jsonschema:"badges earned by this flag, with correct"`
	RetryAfterSeconds int           `json:"retryAfterSeconds,omitempty" jsonschema:"with rate_limited: wait this long before the next flag for this challenge"`
	// With wrong and rate_limited, where the player stands against the
	// rate limit now (attemptsOf).
	attempts
}

// attempts is where a player stands against a challenge's rate limit, as
// get_challenge and submit_flag tell it.
type attempts struct {
	AttemptsLeft    *int   `json:"attemptsLeft,omitempty" jsonschema:"wrong flags you may still send to this challenge in the rate limit's current window; absent when no limit is set (or, with submit_flag, when the outcome is neither wrong nor rate_limited)"`
	AttemptsResetAt string `json:"attemptsResetAt,omitempty" jsonschema:"when one more wrong flag is allowed again: your oldest wrong flag still counted leaves the window then; absent when none is counted"`
}

// attemptsOf reads where v stands against the rate limit of slug.
func (h *Handler) attemptsOf(ctx context.Context, v ctf.Viewer, slug string) (attempts, error) {
	a, err := h.svc.Play.AttemptsLeft(ctx, v, slug)
	if err != nil || !a.Limited {
		return attempts{}, err
	}
	out := attempts{AttemptsLeft: &a.Left}
	if !a.NextAt.IsZero() {
		out.AttemptsResetAt = ctf.FormatTime(a.NextAt)
	}
	return out, nil
}

// leftSentence says what attempts leaves, for a message.
func leftSentence(a attempts) string {
	switch {
	case a.AttemptsLeft == nil:
		return ""
	case *a.AttemptsLeft == 1:
		return " 1 wrong flag left before the rate limit."
	case *a.AttemptsLeft > 0:
		return fmt.Sprintf(" %d wrong flags left before the rate limit.", *a.AttemptsLeft)
	}
	return " No wrong flag left: the next is refused until attemptsResetAt."
}

func (h *Handler) submitFlag(ctx context.Context, _ *sdk.CallToolRequest, in submitInput) (*sdk.CallToolResult, submitOutput, error) {
	v := viewer(ctx)
	res, err := h.svc.Play.Submit(ctx, v, in.Slug, in.Flag)
	out := submitOutput{NewBadges: []badgeOutput{}}
	var de *ctf.Error
	switch {
	case err == nil:
		out.Outcome, out.Points = outcomeCorrect, res.Points
		for _, b := range res.NewBadges {
			out.NewBadges = append(out.NewBadges, badgeOutput{ID: b.ID, Title: b.Title, Icon: b.Icon})
		}
		out.Message = fmt.Sprintf("Correct: %d points.", res.Points)
		if len(out.NewBadges) > 0 {
			out.Message = fmt.Sprintf("Correct: %d points and %d new badge(s).", res.Points, len(out.NewBadges))
		}
	case errors.Is(err, platform.ErrWrongFlag):
		out.Outcome, out.Message = outcomeWrong, "Wrong flag; this try was recorded."
		// The try is committed: the count includes it. A failed read
		// leaves the fields out rather than failing a recorded try.
		if out.attempts, err = h.attemptsOf(ctx, v, in.Slug); err != nil {
			h.log.Warn("mcp: attempts left after a wrong flag", "err", err)
		}
		out.Message += leftSentence(out.attempts)
	case errors.Is(err, ctf.ErrNoChallenge):
		out.Outcome, out.Message = outcomeNotFound, fmt.Sprintf("No challenge has the slug %q; list_challenges gives the slugs.", in.Slug)
	case errors.Is(err, platform.ErrLocked):
		out.Outcome, out.Message = outcomeLocked, "This challenge is locked: get_challenge lists the prerequisites to solve first."
	case ctf.ErrorCode(err) == ctf.Conflict:
		out.Outcome, out.Message = outcomeAlreadySolved, "You already solved this challenge; nothing was recorded."
	case ctf.ErrorCode(err) == ctf.RateLimited && errors.As(err, &de):
		secs := httpx.RetrySeconds(de.RetryAfter)
		out.Outcome, out.RetryAfterSeconds = outcomeRateLimited, secs
		out.Message = fmt.Sprintf("Too many wrong flags for this challenge: wait %d seconds before the next one.", secs)
		if out.attempts, err = h.attemptsOf(ctx, v, in.Slug); err != nil {
			h.log.Warn("mcp: attempts left when rate limited", "err", err)
		}
	default:
		return nil, submitOutput{}, h.toolError(err, in.Slug)
	}
	return nil, out, nil
}
