package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

type item struct {
	Slug     string `json:"slug"`
	Solved   bool   `json:"solved"`
	Unlocked bool   `json:"unlocked"`
	Solves   int    `json:"solves"`
	HasFile  bool   `json:"hasFile"`
}

type list struct {
	Challenges []item `json:"challenges"`
	Count      int    `json:"count"`
}

func slugs(l list) string {
	var out []string
	for _, c := range l.Challenges {
		out = append(out, c.Slug)
	}
	return strings.Join(out, ",")
}

type outcome struct {
	Outcome   string `json:"outcome"`
	Message   string `json:"message"`
	Points    int    `json:"points"`
	NewBadges []struct {
		ID string `json:"id"`
	} `json:"newBadges"`
	RetryAfterSeconds int `json:"retryAfterSeconds"`
}

func submit(t *testing.T, cs *sdk.ClientSession, slug, flag string) outcome {
	t.Helper()
	var o outcome
	res := call(t, cs, "submit_flag", map[string]any{"slug": slug, "flag": flag}, &o)
	if res.IsError {
		t.Fatalf("submit_flag(%s, %s): tool error %q", slug, flag, text(res))
	}
	return o
}

func TestListAndReadChallenges(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{})
	cs := connect(t, s.URL, &keyed{header: "X-API-Key", key: s.Key("alice")})
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{nil, "warmup,next,pwnme"},
		{map[string]any{"category": "WEB"}, "next"},
		{map[string]any{"difficulty": "Medium"}, "pwnme"},
		{map[string]any{"unlocked": false}, "next"},
		{map[string]any{"unlocked": true, "status": "unsolved"}, "warmup,pwnme"},
		{map[string]any{"status": "solved"}, ""},
	} {
		var l list
		if res := call(t, cs, "list_challenges", c.args, &l); res.IsError {
			t.Fatalf("list_challenges(%v): %s", c.args, text(res))
		}
		if got := slugs(l); got != c.want || l.Count != len(l.Challenges) {
			t.Errorf("list_challenges(%v) = %q (count %d), want %q", c.args, got, l.Count, c.want)
		}
	}
	toolError(t, "bad difficulty", call(t, cs, "list_challenges", map[string]any{"difficulty": "Trivial"}, nil), "difficulty")

	var warm struct {
		Description string `json:"description"`
		Solves      int    `json:"solves"`
		File        struct {
			Name, URL, Resource string
			Size                int64
		} `json:"file"`
		Instance *struct{} `json:"instance"`
	}
	call(t, cs, "get_challenge", map[string]any{"slug": "warmup"}, &warm)
	handout, err := os.ReadFile(filepath.Join("testdata", "files", "handout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if warm.Description != "Say **hi**: the flag is in the file." || warm.Solves != 1 || warm.File.Name != "handout.txt" ||
		warm.File.Size != int64(len(handout)) || warm.File.Resource != "flagship://challenges/warmup/file" ||
		!strings.HasPrefix(warm.File.URL, s.URL+"/files/") || warm.Instance != nil {
		t.Errorf("get_challenge warmup = %+v", warm)
	}
	resp, err := http.Get(warm.File.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET the file link: %d", resp.StatusCode)
	}

	var next struct {
		Unlocked          bool     `json:"unlocked"`
		PrerequisitesLeft []string `json:"prerequisitesLeft"`
		File              *struct{}
	}
	call(t, cs, "get_challenge", map[string]any{"slug": "next"}, &next)
	if next.Unlocked || !slices.Equal(next.PrerequisitesLeft, []string{"warmup"}) || next.File != nil {
		t.Errorf("get_challenge next = %+v", next)
	}
	var pwn struct {
		Instance struct {
			Port       int    `json:"port"`
			Connection string `json:"connection"`
		} `json:"instance"`
	}
	call(t, cs, "get_challenge", map[string]any{"slug": "pwnme"}, &pwn)
	if pwn.Instance.Port != 1337 || pwn.Instance.Connection != "nc pwn.example 1337" {
		t.Errorf("get_challenge pwnme instance = %+v", pwn.Instance)
	}
	for _, slug := range []string{"draft", "nope", "../warmup"} {
		toolError(t, "get_challenge "+slug, call(t, cs, "get_challenge", map[string]any{"slug": slug}, nil), "list_challenges gives the slugs")
	}
	toolError(t, "missing slug", call(t, cs, "get_challenge", map[string]any{}, nil), "slug")
}

// TestSubmitOutcomes: every outcome of submit_flag, each a structured answer.
func TestSubmitOutcomes(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{Max: 2, Window: time.Minute})
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	for _, c := range []struct {
		slug, flag, want string
	}{
		{"nope", "flag{x}", "not_found"},
		{"draft", "flag{draft}", "not_found"},
		{"next", "flag{next}", "locked"},
		{"warmup", "flag{cold}", "wrong"},
		{"warmup", "  flag{warm}  ", "correct"},
		{"warmup", "flag{warm}", "already_solved"},
		{"warmup", "flag{cold}", "already_solved"},
		{"next", "flag{nope}", "wrong"},
		{"next", "flag{nope}", "wrong"},
		{"next", "flag{nope}", "rate_limited"},
		{"next", "flag{next}", "rate_limited"},
		{"pwnme", "flag{1234}", "correct"},
	} {
		o := submit(t, cs, c.slug, c.flag)
		if o.Outcome != c.want || o.Message == "" {
			t.Errorf("submit_flag(%s, %q) = %+v, want %s", c.slug, c.flag, o, c.want)
		}
		switch o.Outcome {
		case "rate_limited":
			if o.RetryAfterSeconds < 1 || o.RetryAfterSeconds > 60 {
				t.Errorf("rate_limited: retryAfterSeconds %d", o.RetryAfterSeconds)
			}
		case "correct":
			if o.Points == 0 {
				t.Errorf("correct without points: %+v", o)
			}
		}
	}
	// The first correct flag earned the first-solve badge.
	toolError(t, "empty flag", call(t, cs, "submit_flag", map[string]any{"slug": "pwnme", "flag": "   "}, nil), "flag")
	toolError(t, "long flag", call(t, cs, "submit_flag", map[string]any{"slug": "pwnme", "flag": strings.Repeat("x", 1025)}, nil), "1024")

	var me struct {
		Points int `json:"points"`
		Rank   int `json:"rank"`
		Solves []struct {
			Slug string `json:"slug"`
		} `json:"solves"`
		Badges []struct{ ID, Title string } `json:"badges"`
	}
	call(t, cs, "my_profile", nil, &me)
	if me.Points != 250 || me.Rank != 1 || len(me.Solves) != 2 || me.Solves[0].Slug != "pwnme" || len(me.Badges) == 0 {
		t.Errorf("my_profile = %+v", me)
	}
}

func TestFirstCorrectFlagAnnouncesBadges(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{})
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("bob")})
	o := submit(t, cs, "pwnme", "flag{0042}")
	var ids []string
	for _, b := range o.NewBadges {
		ids = append(ids, b.ID)
	}
	if o.Outcome != "correct" || o.Points != 200 || !slices.Contains(ids, "first-blood") || !slices.Contains(ids, "first-solve") {
		t.Errorf("bob's first blood = %+v (badges %v)", o, ids)
	}
}

// TestReadOnlyKey: a read-only key calls every read tool and gets a clear
// tool error on submit_flag, which records nothing.
func TestReadOnlyKey(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{})
	u, err := s.DB.Accounts().UserByUsername(context.Background(), "carol")
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := s.Svc.Keys.Create(context.Background(), ctf.Operator, platform.NewAPIKey{Owner: u.ID, Name: "ro", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: key})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"list_challenges", nil},
		{"get_challenge", map[string]any{"slug": "warmup"}},
		{"get_writeups", map[string]any{"slug": "warmup"}},
		{"leaderboard", nil},
		{"my_profile", nil},
		{"get_profile", map[string]any{"user": "carol"}},
	} {
		if res := call(t, cs, c.tool, c.args, nil); res.IsError {
			t.Errorf("%s with a read-only key: %s", c.tool, text(res))
		}
	}
	before := attempts(t, s, "pwnme")
	toolError(t, "submit with a read-only key", call(t, cs, "submit_flag", map[string]any{"slug": "pwnme", "flag": "flag{1234}"}, nil), "read-only")
	toolError(t, "wrong flag with a read-only key", call(t, cs, "submit_flag", map[string]any{"slug": "pwnme", "flag": "nope"}, nil), "read-only")
	if after := attempts(t, s, "pwnme"); after != before {
		t.Errorf("a read-only key's submissions changed attemptsCount %d → %d", before, after)
	}
}

// attempts reads a challenge's attemptsCount from the public API.
func attempts(t *testing.T, s *apitest.Server, slug string) int {
	t.Helper()
	r := s.Do("GET", "/api/public/challenges/"+slug, nil)
	var body struct {
		Challenge struct {
			AttemptsCount int `json:"attemptsCount"`
			SolvesCount   int `json:"solvesCount"`
		} `json:"challenge"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Challenge.AttemptsCount
}

func TestWriteupsAndProfiles(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{})
	alice := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	toolError(t, "writeups before solving", call(t, alice, "get_writeups", map[string]any{"slug": "warmup"}, nil), "once you solve it")
	submit(t, alice, "warmup", "flag{warm}")
	var w struct {
		Writeups []struct{ Title, Author, Status, Content string } `json:"writeups"`
	}
	call(t, alice, "get_writeups", map[string]any{"slug": "warmup"}, &w)
	if len(w.Writeups) != 1 || w.Writeups[0].Author != "carol" || w.Writeups[0].Content != "Read **the file**." {
		t.Errorf("get_writeups = %+v", w)
	}
	var p struct {
		Username string `json:"username"`
		Rank     int    `json:"rank"`
		Points   int    `json:"points"`
	}
	for _, who := range []string{"carol", "CAROL"} {
		call(t, alice, "get_profile", map[string]any{"user": who}, &p)
		if p.Username != "carol" || p.Rank != 1 || p.Points != 50 {
			t.Errorf("get_profile %s = %+v", who, p)
		}
	}
	toolError(t, "unknown player", call(t, alice, "get_profile", map[string]any{"user": "nobody"}, nil), "no player")

	var lb struct {
		Players int `json:"players"`
		Top     []struct {
			Rank     int    `json:"rank"`
			Username string `json:"username"`
		} `json:"top"`
		MyRank int `json:"myRank"`
		Around []struct {
			Username string `json:"username"`
		} `json:"around"`
	}
	call(t, alice, "leaderboard", map[string]any{"top": 1, "around": 1}, &lb)
	if lb.Players != 2 || len(lb.Top) != 1 || lb.Top[0].Username != "carol" || lb.MyRank != 2 || len(lb.Around) != 2 ||
		lb.Around[1].Username != "alice" {
		t.Errorf("leaderboard = %+v", lb)
	}
	toolError(t, "top 0..100", call(t, alice, "leaderboard", map[string]any{"top": 500}, nil), "top must be")
}

func TestResourcesAndRulesPrompt(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{Max: 7, Window: time.Minute})
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	ctx := context.Background()
	var templates []string
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, rt.URITemplate)
		if rt.Name == "challenge-file" && !strings.Contains(rt.Description, "8 MiB") {
			t.Errorf("the file resource does not state its size limit: %q", rt.Description)
		}
	}
	if !slices.Contains(templates, "flagship://challenges/{slug}") || !slices.Contains(templates, "flagship://challenges/{slug}/file") {
		t.Errorf("resource templates %v", templates)
	}
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "flagship://challenges/warmup"})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Contents[0]; c.MIMEType != "text/markdown" || !strings.Contains(c.Text, "# Warmup") ||
		!strings.Contains(c.Text, "Say **hi**") || !strings.Contains(c.Text, "flagship://challenges/warmup/file") {
		t.Errorf("challenge resource = %+v", c)
	}
	res, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "flagship://challenges/warmup/file"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join("testdata", "files", "handout.txt"))
	if c := res.Contents[0]; !bytes.Equal(c.Blob, want) || c.MIMEType != "text/plain; charset=utf-8" {
		t.Errorf("file resource = %q (%s), want %q", c.Blob, c.MIMEType, want)
	}
	for _, uri := range []string{"flagship://challenges/draft", "flagship://challenges/draft/file", "flagship://challenges/nope"} {
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s: read, want an error", uri)
		}
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "flagship://challenges/next/file"}); err == nil ||
		!strings.Contains(err.Error(), "no file") {
		t.Errorf("file of a challenge without one: %v", err)
	}
	p, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "event_rules"})
	if err != nil {
		t.Fatal(err)
	}
	rules := p.Messages[0].Content.(*sdk.TextContent).Text
	for _, want := range []string{"at most 7 wrong flags per challenge per minute", "retryAfterSeconds", "1024 bytes", "first blood"} {
		if !strings.Contains(rules, want) {
			t.Errorf("the rules prompt does not say %q:\n%s", want, rules)
		}
	}
}
