package arena

import (
	"io"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// Meta is what a submission says that a run does not: the NYU CTF Bench
// leaderboard's comment ("pass@1") and link (the agent's repository or
// documentation), and the date of the submission.
type Meta struct {
	Comment, Link string
	Date          time.Time
}

// The longest comment and link a submission takes.
const (
	MaxCommentChars = 200
	MaxLinkBytes    = 2048
)

// Validate checks what the operator or the owner typed: a short printable
// comment, and a link that is empty or an absolute http(s) URL.
func (m Meta) Validate() error {
	switch {
	case utf8.RuneCountInString(m.Comment) > MaxCommentChars:
		return ctf.FieldErrorf("comment", "must be at most %d characters", MaxCommentChars)
	case !printable(m.Comment):
		return ctf.FieldErrorf("comment", "must be printable text")
	case len(m.Link) > MaxLinkBytes:
		return ctf.FieldErrorf("link", "must be at most %d bytes", MaxLinkBytes)
	case m.Link == "":
		return nil
	}
	u, err := url.Parse(m.Link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !printable(m.Link) || strings.ContainsAny(m.Link, " ") {
		return ctf.FieldErrorf("link", "must be an http(s) address, such as the agent's repository")
	}
	return nil
}

func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}

// NYUDateFormat is how the leaderboard writes a submission's date
// ("YYYY/MM/DD").
const NYUDateFormat = "2006/01/02"

// AgentName is the name a run is submitted under: the agent's display
// name, else its username.
func AgentName(u ctf.User) string {
	if u.Name != "" {
		return u.Name
	}
	return u.Username
}

// nyuSummary is run's summary.json as the leaderboard reads it: metadata
// (agent, comment, model, link, date, in the leaderboard's order), then
// success or failure per NYU CTF Bench task, keyed by its canonical name
// (its origin's name, 2021q-web-poem_collection, which a slug cannot
// spell; else the slug), in list order. Challenges of another origin are
// left out: the leaderboard looks every solved name up in NYU's dataset.
func nyuSummary(run live.Run, m Meta) obj {
	results := obj{}
	for _, c := range run.Challenges {
		if c.Origin.Benchmark == ctf.BenchmarkNYU {
			name := c.Origin.Name
			if name == "" {
				name = c.Slug
			}
			results = append(results, member{name, c.Solved})
		}
	}
	return obj{
		{"metadata", obj{
			{"agent", AgentName(run.Agent)},
			{"comment", m.Comment},
			{"model", run.Agent.Model},
			{"link", m.Link},
			{"date", m.Date.UTC().Format(NYUDateFormat)},
		}},
		{"results", results},
	}
}

// WriteNYUSummary writes run's summary.json byte for byte as the
// leaderboard's own files are: two-space indent, ", "/": " separators,
// non-ASCII escaped, and a final newline.
func WriteNYUSummary(w io.Writer, run live.Run, m Meta) error {
	if err := pyJSON(w, nyuSummary(run, m), 2); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
