package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

type writeupOutput struct {
	Title     string            `json:"title"`
	Author    string            `json:"author" jsonschema:"the author's username"`
	Status    ctf.WriteupStatus `json:"status" jsonschema:"approved, or pending/rejected for your own"`
	Content   string            `json:"content" jsonschema:"Markdown"`
	UpdatedAt string            `json:"updatedAt"`
}

type writeupsOutput struct {
	Slug     string          `json:"slug"`
	Title    string          `json:"title"`
	Writeups []writeupOutput `json:"writeups"`
}

func (h *Handler) getWriteups(ctx context.Context, _ *sdk.CallToolRequest, in slugInput) (*sdk.CallToolResult, writeupsOutput, error) {
	list, err := h.svc.Play.Writeups(ctx, in.Slug, viewer(ctx))
	if err != nil {
		if ctf.ErrorCode(err) == ctf.Forbidden {
			return nil, writeupsOutput{}, fmt.Errorf("writeups of %q open once you solve it: submit its flag first", in.Slug)
		}
		return nil, writeupsOutput{}, h.toolError(err, in.Slug)
	}
	out := writeupsOutput{Slug: in.Slug, Title: list.Challenge.Title, Writeups: []writeupOutput{}}
	for _, w := range list.Writeups {
		out.Writeups = append(out.Writeups, writeupOutput{Title: w.Title, Author: deref(w.User.Username), Status: w.Status,
			Content: w.Content, UpdatedAt: w.UpdatedAt})
	}
	return nil, out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

type leaderboardInput struct {
	Top    int  `json:"top,omitempty" jsonschema:"how many of the top players to return, 1 to 100 (default 10)"`
	Around *int `json:"around,omitempty" jsonschema:"how many players to show above and below you, 0 to 25 (default 2)"`
}

type rankedPlayer struct {
	Rank         int    `json:"rank"`
	Username     string `json:"username"`
	Name         string `json:"name"`
	Points       int    `json:"points"`
	Solves       int    `json:"solves"`
	LastSolvedAt string `json:"lastSolvedAt"`
}

type leaderboardOutput struct {
	Players int            `json:"players" jsonschema:"how many players are ranked (those with a solve)"`
	Top     []rankedPlayer `json:"top"`
	MyRank  int            `json:"myRank" jsonschema:"your place; 0 while you are not ranked (no solve yet)"`
	Around  []rankedPlayer `json:"around" jsonschema:"you and your neighbours on the board, empty while you are not ranked"`
}

func (h *Handler) leaderboard(ctx context.Context, _ *sdk.CallToolRequest, in leaderboardInput) (*sdk.CallToolResult, leaderboardOutput, error) {
	top, around := 10, 2
	if in.Top != 0 {
		top = in.Top
	}
	if in.Around != nil {
		around = *in.Around
	}
	if top < 1 || top > 100 || around < 0 || around > 25 {
		return nil, leaderboardOutput{}, fmt.Errorf("top must be 1 to 100 and around 0 to 25")
	}
	v := viewer(ctx)
	total, page := h.svc.Scoreboard.LeaderboardPage(0, top, false)
	out := leaderboardOutput{Players: total, Top: ranked(page), MyRank: h.svc.Scoreboard.RankOf(v.ID()), Around: []rankedPlayer{}}
	if out.MyRank > 0 {
		from := max(out.MyRank-1-around, 0)
		_, page = h.svc.Scoreboard.LeaderboardPage(from, out.MyRank-from+around, false)
		out.Around = ranked(page)
	}
	return nil, out, nil
}

func ranked(page []live.RankedEntry) []rankedPlayer {
	out := make([]rankedPlayer, len(page))
	for i, e := range page {
		out[i] = rankedPlayer{Rank: e.Rank, Username: e.Username, Name: e.Name, Points: e.TotalPoints, Solves: e.TotalSolves,
			LastSolvedAt: ctf.FormatTime(e.LastSolvedAt)}
	}
	return out
}

type profileInput struct {
	User string `json:"user" jsonschema:"a username, as the leaderboard shows it, or a user id"`
}

type solveOutput struct {
	Slug       string         `json:"slug"`
	Title      string         `json:"title"`
	Points     int            `json:"points"`
	Categories []string       `json:"categories"`
	Difficulty ctf.Difficulty `json:"difficulty"`
	SolvedAt   string         `json:"solvedAt"`
}

type profileOutput struct {
	ID               string                 `json:"id"`
	Username         string                 `json:"username"`
	Name             string                 `json:"name"`
	Rank             int                    `json:"rank" jsonschema:"place on the leaderboard; after every ranked player without a solve, 0 for admins"`
	Points           int                    `json:"points"`
	FirstBloods      int                    `json:"firstBloods" jsonschema:"challenges this player solved first"`
	Top3             int                    `json:"top3" jsonschema:"challenges this player solved among the first three"`
	Solves           []solveOutput          `json:"solves" jsonschema:"newest first"`
	Badges           []badgeHeld            `json:"badges"`
	CategoryCounts   map[string]int         `json:"categoryCounts"`
	DifficultyCounts map[ctf.Difficulty]int `json:"difficultyCounts"`
}

type badgeHeld struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	AwardedAt string `json:"awardedAt"`
}

func (h *Handler) myProfile(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, profileOutput, error) {
	me, err := h.svc.Accounts.Me(ctx, viewer(ctx))
	if err != nil {
		return nil, profileOutput{}, h.toolError(err, "")
	}
	return nil, profile(me.PublicProfile), nil
}

func (h *Handler) getProfile(ctx context.Context, _ *sdk.CallToolRequest, in profileInput) (*sdk.CallToolResult, profileOutput, error) {
	name := strings.TrimSpace(in.User)
	p := h.svc.Scoreboard.ProfileByName(name)
	if p == nil {
		p = h.svc.Scoreboard.Profile(name)
	}
	if p == nil {
		return nil, profileOutput{}, fmt.Errorf("no player is called %q; the leaderboard tool lists usernames", name)
	}
	return nil, profile(*p), nil
}

func profile(p live.PublicProfile) profileOutput {
	out := profileOutput{ID: p.ID, Username: deref(p.Username), Name: deref(p.Name), Rank: p.Rank, Points: p.TotalPoints,
		FirstBloods: p.FirstBloodCount, Top3: p.Top3Count, Solves: make([]solveOutput, len(p.SolvedChallenges)),
		Badges: make([]badgeHeld, len(p.Badges)), CategoryCounts: p.CategoryCounts, DifficultyCounts: p.DifficultyCounts}
	for i, s := range p.SolvedChallenges {
		c := s.Challenge
		out.Solves[i] = solveOutput{Slug: c.Slug, Title: c.Title, Points: c.Points, Categories: c.Categories,
			Difficulty: c.Difficulty, SolvedAt: s.SolvedAt}
	}
	for i, b := range p.Badges {
		out.Badges[i] = badgeHeld{ID: b.BadgeID, AwardedAt: b.AwardedAt, Title: b.BadgeID}
		if badge, ok := ctf.BadgeByID(b.BadgeID); ok {
			out.Badges[i].Title = badge.Title
		}
	}
	if out.CategoryCounts == nil {
		out.CategoryCounts = map[string]int{}
	}
	if out.DifficultyCounts == nil {
		out.DifficultyCounts = map[ctf.Difficulty]int{}
	}
	return out
}
