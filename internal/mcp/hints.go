package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

// A challenge's hints (docs/product.md#hints), as the API shapes them: the
// tools call the hint use cases, which hold every rule (who sees what, what
// an unlock costs).

type hintOutput struct {
	ID       int     `json:"id" jsonschema:"the hint's id within the challenge, for unlock_hint"`
	Cost     int     `json:"cost" jsonschema:"points taken from your solve of this challenge if you unlock the hint before solving it; unlocking after solving costs nothing"`
	Unlocked bool    `json:"unlocked" jsonschema:"whether you unlocked it"`
	Content  *string `json:"content" jsonschema:"the hint, in Markdown; null until you unlock it"`
	Requires *int    `json:"requires" jsonschema:"the id of the hint to unlock before this one; null for none"`
}

func hintOf(v live.HintView) hintOutput {
	return hintOutput{ID: v.ID, Cost: v.Cost, Unlocked: v.Unlocked, Content: v.Content, Requires: v.Requires}
}

type hintsOutput struct {
	Hints []hintOutput `json:"hints" jsonschema:"the challenge's hints in its order; empty when it has none"`
}

type unlockHintInput struct {
	Slug string `json:"slug" jsonschema:"the challenge's slug, as list_challenges gives it"`
	ID   int    `json:"id" jsonschema:"the hint's id, as list_hints gives it"`
}

func (h *Handler) addHintTools(s *sdk.Server) {
	addTool(s, &sdk.Tool{Name: "list_hints", Title: "List a challenge's hints",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
		Description: "List the hints of a challenge: each hint's id, its cost in points, whether you unlocked it, the hint " +
			"it requires, and its content once you unlocked it (null before). Listing costs nothing; unlock_hint reveals one."},
		h.listHints)
	// Destructive: an unlock spends points for good (no tool takes it back).
	addTool(s, &sdk.Tool{Name: "unlock_hint", Title: "Unlock a hint",
		Annotations: &sdk.ToolAnnotations{OpenWorldHint: new(false), DestructiveHint: new(true), IdempotentHint: true},
		Description: "Unlock a hint of a challenge and read its content. It costs points: unless you already solved the " +
			"challenge, the hint's cost is taken from the points your solve of that challenge earns (never below 0); " +
			"once you solved it, unlocking costs nothing. A hint you unlocked already is answered again at no further " +
			"cost. A hint may require another to be unlocked first (list_hints says which and what each costs)."},
		h.unlockHint)
}

func (h *Handler) listHints(ctx context.Context, _ *sdk.CallToolRequest, in slugInput) (*sdk.CallToolResult, hintsOutput, error) {
	list, err := h.svc.Play.Hints(ctx, viewer(ctx), in.Slug)
	if err != nil {
		return nil, hintsOutput{}, h.toolError(err, in.Slug)
	}
	out := hintsOutput{Hints: make([]hintOutput, len(list))}
	for i, v := range list {
		out.Hints[i] = hintOf(v)
	}
	return nil, out, nil
}

func (h *Handler) unlockHint(ctx context.Context, _ *sdk.CallToolRequest, in unlockHintInput) (*sdk.CallToolResult, hintOutput, error) {
	v, err := h.svc.Play.UnlockHint(ctx, viewer(ctx), in.Slug, in.ID)
	if err != nil {
		return nil, hintOutput{}, h.hintError(err, in)
	}
	return nil, hintOf(v), nil
}

// hintError is toolError with what an agent does next about a hint: the
// refusals that are the same code as others, told apart.
func (h *Handler) hintError(err error, in unlockHintInput) error {
	switch {
	case errors.Is(err, live.ErrNoHint):
		return fmt.Errorf("the challenge %q has no hint %d; list_hints gives its hints", in.Slug, in.ID)
	case errors.Is(err, platform.ErrBanned):
		return errors.New("your account is banned: it cannot unlock hints")
	case errors.Is(err, platform.ErrLocked):
		return errors.New("this challenge is locked: solve the prerequisites get_challenge lists, then unlock its hints")
	}
	return h.toolError(err, in.Slug)
}
