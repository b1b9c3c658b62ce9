package web

import (
	"bytes"
	"cmp"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

// boardData is the board: challenges grouped by category (a challenge in
// two categories under each), filtered as the query says (category,
// difficulty, unsolved, tags, words of the title), so a filtered view is a
// link.
type boardData struct {
	Groups       []boardGroup
	Categories   []string
	Difficulties []ctf.Difficulty
	Tags         []tagChoice // every tag of the listed challenges, in order
	Category     string
	Difficulty   ctf.Difficulty
	Unsolved     bool
	Query        string // ?q=: what the title holds, ignoring case
	Filtered     bool   // some filter is set
	Total        int
	Shown        int // challenges shown (one in two categories counts once)
	Solved       int
	Unshown      []live.ChallengeCount // for admins: the hidden and pending challenges
}

// tagChoice is a tag of the board's filter form, checked when the query
// chose it.
type tagChoice struct {
	Name    string
	Checked bool
}

// boardFilter is what the board's query keeps: a challenge is shown when
// it passes every filter set.
type boardFilter struct {
	category   string
	difficulty ctf.Difficulty
	unsolved   bool
	query      string   // lowercased
	tags       []string // any of them
}

func boardFilterOf(q url.Values) boardFilter {
	f := boardFilter{category: q.Get("category"), difficulty: ctf.Difficulty(q.Get("difficulty")), unsolved: q.Get("unsolved") == "1",
		query: strings.ToLower(strings.TrimSpace(q.Get("q")))}
	for _, t := range q["tag"] {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(f.tags, t) {
			f.tags = append(f.tags, t)
		}
	}
	return f
}

func (f boardFilter) set() bool {
	return f.category != "" || f.difficulty != "" || f.unsolved || f.query != "" || len(f.tags) > 0
}

// shows reports whether the board shows a challenge the caller solved or
// not.
func (f boardFilter) shows(c *live.ChallengeSummary, solved bool) bool {
	switch {
	case f.difficulty != "" && c.Difficulty != f.difficulty, f.unsolved && solved,
		f.category != "" && !slices.Contains(c.Categories, f.category),
		f.query != "" && !strings.Contains(strings.ToLower(c.Title), f.query),
		len(f.tags) > 0 && !slices.ContainsFunc(c.Tags, func(t string) bool { return slices.Contains(f.tags, t) }):
		return false
	}
	return true
}

type boardGroup struct {
	Category string
	Cards    []template.HTML
}

// boardSnap is the board's cards at one version of the challenge list:
// each card rendered once per version in its four looks (solved or not,
// locked or not), so a player's board is assembled, not rendered.
type boardSnap struct {
	version uint64
	cards   []*card
}

type card struct {
	id      string
	version uint64
	sum     live.ChallengeSummary
	html    [4]template.HTML // solved*2 + unlocked
}

type boardCache struct {
	mu  sync.Mutex
	cur atomic.Pointer[boardSnap]
}

// get returns the cards at the service's current version, rendering only
// those whose version moved.
func (c *boardCache) get(h *Handler) *boardSnap {
	if s := c.cur.Load(); s != nil && s.version == h.svc.Play.ChallengeListVersion() {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.cur.Load()
	if old != nil && old.version == h.svc.Play.ChallengeListVersion() {
		return old
	}
	byID := map[string]*card{}
	if old != nil {
		for _, x := range old.cards {
			byID[x.id] = x
		}
	}
	v, rows := h.svc.Play.ChallengeList(func(id string, ver uint64) bool {
		x := byID[id]
		return x != nil && x.version == ver
	})
	snap := &boardSnap{version: v, cards: make([]*card, len(rows))}
	for i, r := range rows {
		x := byID[r.ChallengeID]
		if r.Summary != nil {
			x = h.renderCard(r.ChallengeID, r.Version, *r.Summary)
		}
		snap.cards[i] = x
	}
	c.cur.Store(snap)
	return snap
}

func (h *Handler) renderCard(id string, version uint64, sum live.ChallengeSummary) *card {
	x := &card{id: id, version: version, sum: sum}
	for i := range x.html {
		var buf bytes.Buffer
		d := struct {
			live.ChallengeSummary
			Solved, Unlocked bool
		}{sum, i >= 2, i%2 == 1}
		if err := h.cardTmpl.Execute(&buf, d); err != nil {
			h.log.Error("render a card", "err", err)
		}
		x.html[i] = template.HTML(buf.String()) // #nosec: html/template's output
	}
	return x
}

func (h *Handler) board(w http.ResponseWriter, r *http.Request) { h.boardFor(w, r, h.viewer(w, r)) }

func (h *Handler) boardFor(w http.ResponseWriter, r *http.Request, v ctf.Viewer) {
	q := r.URL.Query()
	f := boardFilterOf(q)
	d := boardData{Category: f.category, Difficulty: f.difficulty, Unsolved: f.unsolved, Query: strings.TrimSpace(q.Get("q")),
		Filtered: f.set(), Difficulties: ctf.Difficulties}
	var snap *boardSnap
	var solved, unlocked []bool
	for {
		var ver uint64
		ver, solved, unlocked = h.svc.Play.MarksInList(v.ID(), solved[:0], unlocked[:0])
		if snap = h.boards.get(h); snap.version == ver && len(snap.cards) == len(solved) {
			break
		}
		// The list moved between the two reads: read both again.
	}
	d.Total = len(snap.cards)
	d.Unshown = h.unshown(r, v)
	groups := map[string]int{}
	var tags []string
	for i, c := range snap.cards {
		if solved[i] {
			d.Solved++
		}
		for _, cat := range c.sum.Categories {
			if !slices.Contains(d.Categories, cat) {
				d.Categories = append(d.Categories, cat)
			}
		}
		for _, t := range c.sum.Tags {
			if !slices.Contains(tags, t) {
				tags = append(tags, t)
			}
		}
		if !f.shows(&c.sum, solved[i]) {
			continue
		}
		d.Shown++
		look := 0
		if solved[i] {
			look += 2
		}
		if unlocked[i] {
			look++
		}
		// A challenge in two categories is under each.
		for _, cat := range c.sum.Categories {
			if f.category != "" && cat != f.category {
				continue
			}
			g, ok := groups[cat]
			if !ok {
				g = len(d.Groups)
				groups[cat] = g
				d.Groups = append(d.Groups, boardGroup{Category: cat})
			}
			d.Groups[g].Cards = append(d.Groups[g].Cards, c.html[look])
		}
	}
	slices.Sort(d.Categories)
	for _, t := range f.tags {
		if !slices.Contains(tags, t) {
			tags = append(tags, t) // chosen, though no challenge has it: it stays in the form
		}
	}
	slices.Sort(tags)
	for _, t := range tags {
		d.Tags = append(d.Tags, tagChoice{Name: t, Checked: slices.Contains(f.tags, t)})
	}
	slices.SortStableFunc(d.Groups, func(a, b boardGroup) int { return strings.Compare(a.Category, b.Category) })
	h.render(w, r, "board", page{Title: "Challenges", Viewer: v, Data: d})
}

// challengeData is a challenge's page.
type challengeData struct {
	C        live.ChallengeDetail
	Requires live.Requirements
	// The flag form's answer, shown in its section: what a correct flag
	// earned (Result), or why a flag was refused.
	Result    *live.SubmitResult
	Practice  bool // the correct flag was a practice solve: it counts for no score
	FlagError string
	Flag      string // what was sent, kept in the form after a wrong flag
	Connect   string // how to reach its service
	// After solving: the writeups to read, and the caller's own.
	Writeups []live.WriteupView
	Mine     *live.WriteupView
	Reason   string // why the caller's writeup was rejected
	Draft    platform.WriteupInput
	// WriteupPreview: the draft is shown rendered above its form.
	WriteupPreview bool
	Stars          []int
	Levels         []int
	Instance       *instancePanel // the caller's own instance, when the challenge has such
	Format         string         // what its flag looks like (ctf.FlagFormatOf), "" when not known
	Preview        *live.Preview  // an admin's view of a challenge players do not see yet
	// Solvers are the first maxSolversShown solvers; MoreSolvers counts
	// the rest.
	Solvers     []live.Solver
	MoreSolvers int
	Hints       hintsData
	// Scoring is how its value follows its solves (the note on a dynamic
	// challenge).
	Scoring ctf.Scoring
}

// maxSolversShown bounds the solvers a challenge's page lists: a page of a
// challenge thousands solved stays light.
const maxSolversShown = 100

func (h *Handler) challenge(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	f := h.takeFlash(w, r, v)
	if f.Section == flagSection || strings.HasPrefix(f.Section, hintSectionPrefix) {
		// The flag form's answer is said in its section (app.js swaps the
		// page in and points there); an unlock's beside its hint.
		h.challengePage(w, r, v, page{flashTaken: true}, f)
		return
	}
	p := page{Notice: cmp.Or(f.Notice, instanceNotices[r.URL.Query().Get("done")]), Error: f.Error, flashTaken: true}
	h.challengePage(w, r, v, p, flash{})
}

// flagSection is the flag form's part of a challenge's page, where its
// answer lands.
const flagSection = "flag"

// challengeURL is a challenge's page, where its forms go back to.
func challengeURL(slug string) string { return "/challenges/" + url.PathEscape(slug) }

func (h *Handler) challengePage(w http.ResponseWriter, r *http.Request, v ctf.Viewer, p page, answer flash) {
	slug := r.PathValue("slug")
	c, err := h.svc.Play.Challenge(slug, v)
	preview := h.preview(slug, v)
	if preview != nil {
		c, err = preview.Detail, nil
	}
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	reqs, _ := h.svc.Play.Prerequisites(slug, v)
	flagAnswer := answer
	if answer.Section != flagSection {
		flagAnswer = flash{}
	}
	d := challengeData{C: c, Requires: reqs, Result: flagAnswer.Result, Practice: flagAnswer.Practice, FlagError: flagAnswer.Error, Flag: flagAnswer.Flag, Connect: h.svc.Play.ConnectionInfo(r.Context(), slug),
		Stars: []int{1, 2, 3, 4, 5}, Levels: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, Instance: h.instancePanelOf(r.Context(), v, slug)}
	d.Format, _ = h.svc.Play.FlagFormat(slug, v)
	d.Preview = preview
	d.Hints = h.hintsOf(r.Context(), v, slug, c.Solved, preview, answer)
	d.Scoring = c.Scoring
	d.Solvers, _ = h.svc.Play.Solvers(slug, v)
	if n := len(d.Solvers); n > maxSolversShown {
		d.Solvers, d.MoreSolvers = d.Solvers[:maxSolversShown], n-maxSolversShown
	}
	if c.Solved {
		if list, err := h.svc.Play.Writeups(r.Context(), slug, v); err == nil {
			for _, w := range list.Writeups {
				if w.UserID == v.ID() {
					mine := w
					d.Mine = &mine
					d.Draft = platform.WriteupInput{Title: w.Title, Content: w.Content, Images: w.Images}
				}
				// The author's approved writeup is listed as everyone's is;
				// a pending or rejected one is shown to them alone, with
				// its state, under "Your writeup".
				if w.Status == ctf.WriteupApproved {
					d.Writeups = append(d.Writeups, w)
				}
			}
		}
		if d.Mine != nil {
			_, d.Reason, _ = h.svc.Play.MyWriteup(r.Context(), v, slug)
		}
	}
	if f, ok := p.Data.(writeupForm); ok {
		d.Draft, d.WriteupPreview = f.In, f.Preview // a refused or previewed draft stays in the form
	}
	p.Title, p.Viewer, p.Data = c.Title, v, d
	h.render(w, r, "challenge", p)
}

// review rates a solved challenge.
func (h *Handler) review(w http.ResponseWriter, r *http.Request) {
	v, ok := h.signedIn(w, r)
	if !ok {
		return
	}
	stars, _ := strconv.Atoi(r.PostFormValue("stars"))
	level, _ := strconv.Atoi(r.PostFormValue("difficulty"))
	slug := r.PathValue("slug")
	if stars == 0 || level == 0 {
		// The choices start empty (no rating is made up): a form sent
		// without one is refused, never read as one star.
		h.redirectWith(w, r, v, challengeURL(slug), flash{Error: "Choose the stars and the difficulty, then press Rate."})
		return
	}
	if _, err := h.svc.Play.Review(r.Context(), v, slug, stars, level); err != nil {
		if ctf.ErrorCode(err) == ctf.NotFound {
			h.error(w, r, v, err)
			return
		}
		h.redirectWith(w, r, v, challengeURL(slug), flash{Error: h.refused(w, r, err).Error})
		return
	}
	h.redirectWith(w, r, v, challengeURL(slug), flash{Notice: "Thanks: your rating is saved."})
}

// writeupForm is the writeup form as typed, shown again after a refusal
// or for a preview.
type writeupForm struct {
	In      platform.WriteupInput
	Preview bool
}

// writeup saves the caller's writeup of a solved challenge; it then awaits
// moderation. "Preview" (a button named preview) shows the challenge's
// page with the form as typed and the writeup rendered above it, and
// saves nothing.
func (h *Handler) writeup(w http.ResponseWriter, r *http.Request) {
	v, ok := h.signedIn(w, r)
	if !ok {
		return
	}
	in := platform.WriteupInput{Title: r.PostFormValue("title"), Content: r.PostFormValue("content"),
		Images: strings.Split(strings.ReplaceAll(r.PostFormValue("images"), "\r", ""), "\n")}
	if r.PostFormValue("preview") != "" {
		h.challengePage(w, r, v, page{Data: writeupForm{In: in, Preview: true}, Path: challengeURL(r.PathValue("slug"))}, flash{})
		return
	}
	if _, err := h.svc.Play.SaveWriteup(r.Context(), v, r.PathValue("slug"), in); err != nil {
		h.challengeError(w, r, v, err, page{Data: writeupForm{In: in}})
		return
	}
	h.redirectWith(w, r, v, challengeURL(r.PathValue("slug")), flash{Notice: "Your writeup is saved and awaits moderation."})
}

// challengeError shows a refused writeup on the challenge's page in place
// (or the error page when there is no such challenge): the draft, too long
// for a flash, stays in the form, and a reload changes nothing.
func (h *Handler) challengeError(w http.ResponseWriter, r *http.Request, v ctf.Viewer, err error, p page) {
	if ctf.ErrorCode(err) == ctf.NotFound {
		h.error(w, r, v, err)
		return
	}
	q := h.refusedInWords(w, r, err)
	p.Status, p.Error = q.Status, q.Error
	p.Path = challengeURL(r.PathValue("slug")) // the theme switch goes back to the page, not the form
	h.challengePage(w, r, v, p, flash{})
}

// submit checks a flag and shows the answer on the challenge's page: the
// badges just earned, or why not (wrong, solved already, locked, the wait).
func (h *Handler) submit(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	slug := r.PathValue("slug")
	if v.User == nil {
		redirect(w, r, "/login?next="+url.QueryEscape("/challenges/"+slug))
		return
	}
	flag := r.PostFormValue("flag")
	res, err := h.svc.Play.Submit(r.Context(), v, slug, flag)
	if err != nil {
		if ctf.ErrorCode(err) == ctf.NotFound {
			h.error(w, r, v, err)
			return
		}
		p := h.refused(w, r, err)
		if e := asRateLimited(err); e != nil {
			p.Error = "Too many wrong flags: wait " + waitText(e.RetryAfter) + " before the next try."
		}
		if errors.Is(err, platform.ErrWrongFlag) {
			p.Error = "Wrong flag."
		}
		h.redirectWith(w, r, v, challengeURL(slug)+"#submit-flag", flash{Error: p.Error, Flag: flag, Section: flagSection})
		return
	}
	h.redirectWith(w, r, v, challengeURL(slug)+"#submit-flag", flash{Result: &res, Practice: res.Practice, Section: flagSection})
}
