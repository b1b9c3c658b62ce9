package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// boardData is the board: challenges grouped by category, filtered as the
// query says (category, difficulty, unsolved), so a filtered view is a
// link.
type boardData struct {
	Groups       []boardGroup
	Categories   []string
	Difficulties []string
	Category     string
	Difficulty   string
	Unsolved     bool
	Total        int
	Shown        int
	Solved       int
}

type boardGroup struct {
	Category   string
	Challenges []platform.ChallengeDetail
}

func (h *Handler) board(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	q := r.URL.Query()
	d := boardData{Category: q.Get("category"), Difficulty: q.Get("difficulty"), Unsolved: q.Get("unsolved") == "1",
		Difficulties: []string{ctf.Easy, ctf.Medium, ctf.Hard, ctf.Insane}}
	all := h.svc.Board(v)
	d.Total = len(all)
	groups := map[string]int{}
	for _, c := range all {
		if c.Solved {
			d.Solved++
		}
		for _, cat := range c.Categories {
			if !slices.Contains(d.Categories, cat) {
				d.Categories = append(d.Categories, cat)
			}
		}
		if (d.Difficulty != "" && c.Difficulty != d.Difficulty) || (d.Unsolved && c.Solved) ||
			(d.Category != "" && !slices.Contains(c.Categories, d.Category)) {
			continue
		}
		d.Shown++
		cat := c.Categories[0]
		if d.Category != "" {
			cat = d.Category
		}
		i, ok := groups[cat]
		if !ok {
			i = len(d.Groups)
			groups[cat] = i
			d.Groups = append(d.Groups, boardGroup{Category: cat})
		}
		d.Groups[i].Challenges = append(d.Groups[i].Challenges, c)
	}
	slices.Sort(d.Categories)
	slices.SortStableFunc(d.Groups, func(a, b boardGroup) int { return strings.Compare(a.Category, b.Category) })
	h.render(w, r, "board", page{Title: "Challenges", Viewer: v, Data: d})
}

// challengeData is a challenge's page.
type challengeData struct {
	C        platform.ChallengeDetail
	Requires []platform.Prerequisite
	Result   *platform.SubmitResult
	Flag     string // what was sent, kept in the form after a wrong flag
}

func (h *Handler) challenge(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	h.challengePage(w, r, v, page{}, nil, "")
}

func (h *Handler) challengePage(w http.ResponseWriter, r *http.Request, v platform.Viewer, p page, res *platform.SubmitResult, flag string) {
	slug := r.PathValue("slug")
	c, err := h.svc.Challenge(slug, v)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	reqs, _ := h.svc.Prerequisites(slug, v)
	p.Title, p.Viewer, p.Data = c.Title, v, challengeData{C: c, Requires: reqs, Result: res, Flag: flag}
	h.render(w, r, "challenge", p)
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
	res, err := h.svc.Submit(r.Context(), v, slug, flag)
	if err != nil {
		if ctf.ErrorCode(err) == ctf.NotFound {
			h.error(w, r, v, err)
			return
		}
		p := page{Status: statusOf(err), Error: ctf.ErrorMessage(err)}
		if e := asRateLimited(err); e != nil {
			p.Error = "Too many wrong flags: wait " + waitText(e.RetryAfter) + " before the next try."
		}
		if ctf.ErrorCode(err) == ctf.Invalid && strings.TrimSpace(flag) != "" {
			p.Error = "Wrong flag."
		}
		h.challengePage(w, r, v, p, nil, flag)
		return
	}
	h.challengePage(w, r, v, page{Notice: "Correct!"}, &res, "")
}
