package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// The tools are few on purpose: agents choose better among few tools. Each
// is a thin call of a use case; none holds a rule of its own.

type listInput struct {
	Category   string `json:"category,omitempty" jsonschema:"only challenges in this category, e.g. crypto or web (case-insensitive)"`
	Difficulty string `json:"difficulty,omitempty" jsonschema:"only challenges of this difficulty"`
	Status     string `json:"status,omitempty" jsonschema:"solved: only those you solved; unsolved: only those you have not"`
	Unlocked   *bool  `json:"unlocked,omitempty" jsonschema:"true: only challenges you may submit to now; false: only those still locked behind prerequisites"`
}

type challengeItem struct {
	Slug        string         `json:"slug" jsonschema:"the challenge's id for the other tools"`
	Title       string         `json:"title"`
	Categories  []string       `json:"categories"`
	Difficulty  ctf.Difficulty `json:"difficulty"`
	Points      int            `json:"points"`
	Solves      int            `json:"solves" jsonschema:"how many players solved it"`
	Solved      bool           `json:"solved" jsonschema:"whether you solved it"`
	Unlocked    bool           `json:"unlocked" jsonschema:"whether you may submit to it now"`
	HasFile     bool           `json:"hasFile" jsonschema:"it comes with a file to download"`
	HasInstance bool           `json:"hasInstance" jsonschema:"it runs a service to attack"`
}

type listOutput struct {
	Challenges []challengeItem `json:"challenges"`
	Count      int             `json:"count"`
}

type slugInput struct {
	Slug string `json:"slug" jsonschema:"the challenge's slug, as list_challenges gives it"`
}

type fileOutput struct {
	Name     string `json:"name"`
	URL      string `json:"url" jsonschema:"download it with a plain HTTP GET (no key needed)"`
	Size     *int64 `json:"size" jsonschema:"bytes; null for a link to another site"`
	Resource string `json:"resource,omitempty" jsonschema:"the MCP resource that returns its bytes, for files within the resource size limit"`
	// A zip handout's files (platform.Play.FileMembers).
	Members        []memberOutput `json:"members,omitempty" jsonschema:"with a zip file: the files inside it, each with a url to download it alone"`
	MembersOmitted int            `json:"membersOmitted,omitempty" jsonschema:"with a zip file of very many files: how many more it holds than members lists"`
}

type memberOutput struct {
	Name    string `json:"name" jsonschema:"its path inside the zip"`
	Size    int64  `json:"size" jsonschema:"bytes, unpacked"`
	URL     string `json:"url,omitempty" jsonschema:"download it alone with a plain HTTP GET (no key needed); absent when it is not served"`
	Refused string `json:"refused,omitempty" jsonschema:"why it is not served alone (too large, encrypted...): download the whole zip"`
}

type instanceOutput struct {
	Port       *int            `json:"port"`
	Connection string          `json:"connection,omitempty" jsonschema:"how to reach the service, e.g. nc host 1337"`
	PerPlayer  bool            `json:"perPlayer" jsonschema:"true: you start your own instance with start_instance (with your own flag; it stops by itself); false: one service for everyone"`
	Yours      *playerInstance `json:"yours,omitempty" jsonschema:"your own instance while it runs: its connection line and expiry"`
}

type challengeOutput struct {
	Slug              string          `json:"slug"`
	Title             string          `json:"title"`
	Categories        []string        `json:"categories"`
	Difficulty        ctf.Difficulty  `json:"difficulty"`
	Points            int             `json:"points"`
	Description       string          `json:"description" jsonschema:"the task, in Markdown"`
	Solves            int             `json:"solves" jsonschema:"how many players solved it"`
	Attempts          int64           `json:"attempts" jsonschema:"flags players sent to it, right and wrong"`
	Solved            bool            `json:"solved" jsonschema:"whether you solved it"`
	SubmittedFlag     *string         `json:"submittedFlag" jsonschema:"the flag you solved it with; null until you do"`
	Unlocked          bool            `json:"unlocked" jsonschema:"whether you may submit to it now"`
	PrerequisitesLeft []string        `json:"prerequisitesLeft" jsonschema:"slugs of the challenges to solve before this one unlocks"`
	Unreleased        int             `json:"prerequisitesUnreleased" jsonschema:"how many more challenges to solve before this one unlocks that are not released yet (counted, never named)"`
	File              *fileOutput     `json:"file" jsonschema:"the handout; null if none"`
	Instance          *instanceOutput `json:"instance" jsonschema:"the service to attack; null if none"`
	AvgStars          *float64        `json:"avgStars" jsonschema:"players' rating, 1 to 5; null without reviews"`
	AvgDifficulty     *float64        `json:"avgDifficulty" jsonschema:"players' difficulty rating, 1 to 10; null without reviews"`
	FlagFormat        string          `json:"flagFormat" jsonschema:"what this challenge's flag looks like, e.g. csawctf{...}; empty when not known (the description may say)"`
	attempts
}

func (h *Handler) addTools(s *sdk.Server) {
	read := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	addTool(s, &sdk.Tool{Name: "list_challenges", Title: "List challenges", Annotations: read,
		Description: "List the event's challenges with your progress: slug, title, categories, difficulty, points, solves, " +
			"whether you solved it and whether it is unlocked. Filters narrow the list."}, h.listChallenges)
	addTool(s, &sdk.Tool{Name: "get_challenge", Title: "Read a challenge", Annotations: read,
		Description: "Read one challenge: its Markdown description, points, solves, its flag format, the wrong flags you have left, " +
			"its file (link, size and resource; for a zip, the files inside with a link to each), " +
			"the service to attack if it has one (whether you start your own with start_instance, and yours while it runs), " +
			"and the prerequisites you still have to solve."}, h.getChallenge)
	addTool(s, &sdk.Tool{Name: "submit_flag", Title: "Submit a flag",
		Annotations: &sdk.ToolAnnotations{OpenWorldHint: new(false), DestructiveHint: new(false)},
		Description: "Submit a flag for a challenge. The outcome is one of: correct (with points and new badges), wrong, " +
			"already_solved, locked (solve its prerequisites first), rate_limited (wait retryAfterSeconds) or not_found. " +
			"Wrong flags count against a per-challenge rate limit.",
		OutputSchema: schemaFor[submitOutput](map[string][]any{
			"outcome": {outcomeCorrect, outcomeWrong, outcomeAlreadySolved, outcomeLocked, outcomeRateLimited, outcomeNotFound},
		})}, h.submitFlag)
	addTool(s, &sdk.Tool{Name: "get_writeups", Title: "Read writeups", Annotations: read,
		Description: "Read the approved writeups of a challenge you solved (and your own). They open only after you solve it."},
		h.getWriteups)
	h.addHintTools(s)
	addTool(s, &sdk.Tool{Name: "leaderboard", Title: "Leaderboard", Annotations: read,
		Description: "The ranked players: the top N, your own rank and points, and the players just above and below you."},
		h.leaderboard)
	addTool(s, &sdk.Tool{Name: "my_profile", Title: "My profile", Annotations: read,
		Description: "Your rank, points, solves (newest first), badges, first bloods and counts by category and difficulty."},
		h.myProfile)
	addTool(s, &sdk.Tool{Name: "get_profile", Title: "A player's profile", Annotations: read,
		Description: "Another player's public profile, by username (as the leaderboard shows it) or id."}, h.getProfile)
	h.addInstanceTools(s)
}

// addTool adds a tool whose input schema is inputSchema's (plain, with
// its bounds) unless t gives one.
func addTool[In, Out any](s *sdk.Server, t *sdk.Tool, h sdk.ToolHandlerFor[In, Out]) {
	if t.InputSchema == nil {
		t.InputSchema = inputSchema[In](t.Name)
	}
	sdk.AddTool(s, t, h)
}

// schemaFor infers T's schema and restricts the named string properties to
// the given values.
func schemaFor[T any](enums map[string][]any) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %T: %v", *new(T), err))
	}
	for name, values := range enums {
		s.Properties[name].Enum = values
	}
	return s
}

func (h *Handler) listChallenges(ctx context.Context, _ *sdk.CallToolRequest, in listInput) (*sdk.CallToolResult, listOutput, error) {
	v := viewer(ctx)
	out := listOutput{Challenges: []challengeItem{}}
	for _, c := range h.svc.Play.Board(v) {
		switch {
		case in.Category != "" && !hasFold(c.Categories, in.Category),
			in.Difficulty != "" && !strings.EqualFold(string(c.Difficulty), in.Difficulty),
			in.Status == "solved" && !c.Solved, in.Status == "unsolved" && c.Solved,
			in.Unlocked != nil && *in.Unlocked != c.Unlocked:
			continue
		}
		out.Challenges = append(out.Challenges, challengeItem{Slug: c.Slug, Title: c.Title, Categories: c.Categories,
			Difficulty: c.Difficulty, Points: c.Points, Solves: c.SolvesCount, Solved: c.Solved, Unlocked: c.Unlocked,
			HasFile: c.FileURL != nil, HasInstance: c.HasInstance})
	}
	out.Count = len(out.Challenges)
	return nil, out, nil
}

func hasFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func (h *Handler) getChallenge(ctx context.Context, _ *sdk.CallToolRequest, in slugInput) (*sdk.CallToolResult, challengeOutput, error) {
	v := viewer(ctx)
	c, err := h.svc.Play.Challenge(in.Slug, v)
	if err != nil {
		return nil, challengeOutput{}, h.toolError(err, in.Slug)
	}
	reqs, _ := h.svc.Play.Prerequisites(in.Slug, v)
	out := challengeOutput{Slug: c.Slug, Title: c.Title, Categories: c.Categories, Difficulty: c.Difficulty, Points: c.Points,
		Description: c.Description, Solves: c.SolvesCount, Attempts: c.AttemptsCount, Solved: c.Solved,
		SubmittedFlag: c.SubmittedFlag, Unlocked: c.Unlocked, PrerequisitesLeft: []string{},
		AvgStars: c.AvgStars, AvgDifficulty: c.AvgDifficulty}
	for _, p := range reqs.Open {
		if !p.Solved {
			out.PrerequisitesLeft = append(out.PrerequisitesLeft, p.Slug)
		}
	}
	out.Unreleased = reqs.Unreleased
	if out.FlagFormat, err = h.svc.Play.FlagFormat(in.Slug, v); err != nil {
		return nil, challengeOutput{}, h.toolError(err, in.Slug)
	}
	if !c.Solved { // a solved challenge takes no more flags
		if out.attempts, err = h.attemptsOf(ctx, v, in.Slug); err != nil {
			return nil, challengeOutput{}, h.toolError(err, in.Slug)
		}
	}
	f, err := h.svc.Play.FileOf(ctx, in.Slug)
	if err != nil {
		return nil, challengeOutput{}, h.toolError(err, in.Slug)
	}
	if f != nil {
		out.File = &fileOutput{Name: f.Name, URL: f.URL}
		if f.Size >= 0 {
			out.File.Size = &f.Size
			if f.Size <= maxBlobBytes {
				out.File.Resource = fileURI(c.Slug)
			}
		}
		members, total, err := h.svc.Play.FileMembers(ctx, in.Slug)
		if err != nil {
			return nil, challengeOutput{}, h.toolError(err, in.Slug)
		}
		for _, m := range members {
			out.File.Members = append(out.File.Members, memberOutput{Name: m.Name, Size: m.Size, URL: m.URL, Refused: m.Refused})
		}
		out.File.MembersOmitted = total - len(members)
	}
	if conn := h.svc.Play.ConnectionInfo(ctx, in.Slug); c.HasInstance || conn != "" {
		out.Instance = &instanceOutput{Port: c.DockerPort, Connection: conn}
		if out.Instance.PerPlayer, out.Instance.Yours, err = h.yourInstance(ctx, v, in.Slug); err != nil {
			return nil, challengeOutput{}, h.toolError(err, in.Slug)
		}
		if out.Instance.Yours != nil {
			out.Instance.Connection = out.Instance.Yours.Connection
		}
	}
	return nil, out, nil
}

// toolError is an error an agent can act on, in one sentence; what is not
// the caller's to fix is logged and said plainly.
func (h *Handler) toolError(err error, slug string) error {
	switch {
	case errors.Is(err, ctf.ErrNoChallenge):
		return fmt.Errorf("no challenge has the slug %q; list_challenges gives the slugs", slug)
	case errors.Is(err, platform.ErrReadOnlyKey):
		return errors.New("this API key is read-only: it can call every read tool but cannot submit flags; use a key without the read-only mark")
	case errors.Is(err, platform.ErrBanned):
		return errors.New("your account is banned from submitting flags")
	}
	switch ctf.ErrorCode(err) {
	case ctf.Invalid, ctf.Forbidden, ctf.NotFound, ctf.Unauthorized:
		return errors.New(ctf.ErrorMessage(err))
	case ctf.Unavailable:
		return errors.New("the platform is briefly unavailable; try again in a few seconds")
	}
	h.log.Error("mcp tool", "err", err)
	return errors.New("internal error; try again later")
}
