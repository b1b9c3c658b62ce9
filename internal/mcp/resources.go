package mcp

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxBlobBytes bounds a file read as a resource: its bytes travel base64 in
// one JSON message. Larger files are downloaded from their URL.
const maxBlobBytes = 8 << 20

const uriPrefix = "flagship://challenges/"

func fileURI(slug string) string { return uriPrefix + slug + "/file" }

func (h *Handler) addResources(s *sdk.Server) {
	s.AddResourceTemplate(&sdk.ResourceTemplate{Name: "challenge", Title: "A challenge's handout",
		URITemplate: uriPrefix + "{slug}", MIMEType: "text/markdown",
		Description: "The challenge as Markdown: title, points, categories, how to reach its service, its file's link and its description."},
		h.readResource)
	s.AddResourceTemplate(&sdk.ResourceTemplate{Name: "challenge-file", Title: "A challenge's file",
		URITemplate: uriPrefix + "{slug}/file",
		Description: fmt.Sprintf("The bytes of the challenge's file, as a blob, for files up to %d MiB; "+
			"larger files (and links to other sites) are downloaded from the url get_challenge gives.", maxBlobBytes>>20)},
		h.readResource)
}

// readResource serves both templates: the URI says which.
func (h *Handler) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, uriPrefix)
	if !ok || rest == "" {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	slug, file := strings.CutSuffix(rest, "/file")
	if strings.Contains(slug, "/") {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	v := viewer(ctx)
	c, err := h.svc.Play.Challenge(slug, v)
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	f, err := h.svc.Play.FileOf(ctx, slug)
	if err != nil {
		return nil, h.toolError(err, slug)
	}
	if !file {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n", c.Title)
		fmt.Fprintf(&b, "- slug: %s\n- points: %d\n- difficulty: %s\n- categories: %s\n- solves: %d\n",
			c.Slug, c.Points, c.Difficulty, strings.Join(c.Categories, ", "), c.SolvesCount)
		if conn := h.svc.Play.ConnectionInfo(ctx, slug); conn != "" {
			fmt.Fprintf(&b, "- service: `%s`\n", conn)
		} else if c.HasInstance && c.DockerPort != nil {
			fmt.Fprintf(&b, "- service port: %d\n", *c.DockerPort)
		}
		if f != nil {
			fmt.Fprintf(&b, "- file: [%s](%s)", f.Name, f.URL)
			if f.Size >= 0 {
				fmt.Fprintf(&b, " (%d bytes; resource %s)", f.Size, fileURI(slug))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\n%s\n", c.Description)
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: b.String()}}}, nil
	}
	switch {
	case f == nil:
		return nil, fmt.Errorf("challenge %q has no file", slug)
	case f.Size < 0:
		return nil, fmt.Errorf("the file of %q is a link to another site: download it from %s", slug, f.URL)
	case f.Size > maxBlobBytes:
		return nil, fmt.Errorf("the file of %q is %d bytes, over the %d MiB resource limit: download it from %s",
			slug, f.Size, maxBlobBytes>>20, f.URL)
	}
	open, err := h.svc.Play.OpenFile(ctx, f.SHA256, f.Name)
	if err != nil {
		return nil, h.toolError(err, slug)
	}
	defer open.Close()
	data, err := io.ReadAll(io.LimitReader(open, maxBlobBytes+1))
	if err != nil {
		return nil, h.toolError(fmt.Errorf("read challenge file: %w", err), slug)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: mimeOf(f.Name), Blob: data}}}, nil
}

func (h *Handler) addPrompts(s *sdk.Server) {
	s.AddPrompt(&sdk.Prompt{Name: "event_rules", Title: "The event's rules",
		Description: "Explains the event's rules to an agent: how to play, the flag format, the rate limit and the scoring."},
		func(ctx context.Context, _ *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Description: "The rules of this Flagship event",
				Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: h.rules(viewer(ctx))}}}}, nil
		})
}

func (h *Handler) rules(v ctf.Viewer) string {
	r := h.svc.Event.Rules()
	var b strings.Builder
	b.WriteString("You are playing a CTF (capture the flag) event on Flagship, beside people and other agents.\n\n")
	b.WriteString("How to play: call list_challenges, pick an unlocked challenge, read it with get_challenge ")
	b.WriteString("(its file is linked and, when small enough, readable as the resource it names), find the flag, ")
	b.WriteString("and send it with submit_flag. Read the outcome field of every answer.\n\n")
	b.WriteString("Flags: submit the flag exactly as you found it; surrounding spaces are ignored. ")
	b.WriteString(h.formatsSentence(v))
	fmt.Fprintf(&b, "A flag is at most %d bytes.\n\n", r.MaxFlag)
	if r.RateLimit > 0 {
		fmt.Fprintf(&b, "Rate limit: at most %d wrong flags per challenge per %s. Past that, submit_flag answers "+
			"rate_limited with retryAfterSeconds: wait that long before trying that challenge again. Do not guess.\n\n",
			r.RateLimit, formatWait(r.RateWindow))
	} else {
		b.WriteString("Rate limit: none is set, but every wrong flag is recorded. Do not guess.\n\n")
	}
	b.WriteString("Scoring: a solve is worth the challenge's points (a dynamic challenge is worth less as more players ")
	b.WriteString("solve it, to every solver alike), less the cost of the hints you unlocked on it before solving it ")
	b.WriteString("(list_hints, unlock_hint; a hint unlocked after solving costs nothing). The leaderboard ranks by ")
	b.WriteString("total points, then by who reached that score first. The first solver of a challenge takes its first ")
	b.WriteString("blood. A solved challenge stays solved (already_solved); locked challenges open once their ")
	b.WriteString("prerequisites are solved. Writeups of a challenge open once you solve it.\n")
	return b.String()
}

// formatWait says a duration the way the prompt states the rate limit.
func formatWait(d time.Duration) string {
	if d%time.Minute == 0 {
		if d == time.Minute {
			return "minute"
		}
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return fmt.Sprintf("%d seconds", d/time.Second)
}

// formatsSentence says what flags look like: one format when every
// challenge has the same, else that they vary (and the event's, which
// challenges without their own have), and where to read each.
func (h *Handler) formatsSentence(v ctf.Viewer) string {
	event := strings.TrimSpace(h.svc.Event.Current().FlagFormat)
	formats, without := map[string]bool{}, 0
	for _, c := range h.svc.Play.Board(v) {
		f, err := h.svc.Play.FlagFormat(c.Slug, v)
		switch {
		case err != nil:
		case f == "":
			without++
		default:
			formats[f] = true
		}
	}
	switch {
	case len(formats) == 0 && event == "":
		return "The organiser set no flag format: a challenge's description says what its flag looks like (often flag{...}). "
	case len(formats) == 0:
		return fmt.Sprintf("Flags look like %s. ", event)
	case len(formats) == 1 && without == 0:
		for f := range formats {
			return fmt.Sprintf("Flags look like %s; get_challenge gives each challenge's format as flagFormat. ", f)
		}
	case event != "":
		return fmt.Sprintf("Flag formats vary per challenge: get_challenge gives each challenge's format as flagFormat "+
			"(the event's is %s, for challenges that set none). ", event)
	}
	return "Flag formats vary per challenge: get_challenge gives each challenge's format as flagFormat " +
		"(e.g. csawctf{...}); where it is empty, the description says what the flag looks like. "
}
