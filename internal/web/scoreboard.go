package web

import (
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

// scoreRow is a row of the board with its place in the view shown.
type scoreRow struct {
	live.RankedEntry
	Place int
}

// scorePageSize is how many players a scoreboard page lists: a 10,000-
// player board is never one page.
const scorePageSize = 50

type scoreboardData struct {
	Who         string // "", "people" or "agents": which players the page lists
	Rows        []scoreRow
	Page, Pages int
	Total       int
	PastTheEnd  bool // the page asked for is after the last
	MyRank      int  // the caller's place in the view, 1-based; 0: not ranked there (or anonymous)
	MyID        string
	MyPage      int
	Graph       template.HTML
	Top         []live.RankedEntry
	Live        bool // an admin's view of the live standings during a freeze
}

func (h *Handler) scoreboard(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	pageNo, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pageNo = max(pageNo, 1)
	who, whoName := live.Everyone, ""
	switch r.URL.Query().Get("who") {
	case "people":
		who, whoName = live.People, "people"
	case "agents":
		who, whoName = live.AgentsOnly, "agents"
	}
	// During a freeze admins see the live standings (the use case says
	// who may), and the page says so. Their graph is drawn for them: the
	// cached one is the public, frozen one.
	unfrozen := v.IsAdmin() && h.svc.Event.Current().Frozen
	var total int
	var rows []live.RankedEntry
	if unfrozen {
		var err error
		if total, rows, err = h.svc.Scoreboard.LiveLeaderboardPageOf(v, who, (pageNo-1)*scorePageSize, scorePageSize, false); err != nil {
			h.error(w, r, v, err)
			return
		}
	} else {
		total, rows = h.svc.Scoreboard.LeaderboardPageOf(who, (pageNo-1)*scorePageSize, scorePageSize, false)
	}
	d := scoreboardData{Who: whoName, Page: pageNo, Total: total, Pages: max((total+scorePageSize-1)/scorePageSize, 1), Live: unfrozen}
	d.PastTheEnd = pageNo > d.Pages
	// A view of people or agents ranks them among themselves: the first
	// agent is #1 of the agents' board, whatever their place among all.
	for i, e := range rows {
		d.Rows = append(d.Rows, scoreRow{RankedEntry: e, Place: (pageNo-1)*scorePageSize + i + 1})
	}
	if v.User != nil && who.Includes(v.User) {
		// The caller's row is on the page of their place among those listed.
		if place := h.svc.Scoreboard.PlaceAmong(who, v.User.ID); place >= 0 {
			d.MyRank, d.MyID = place+1, v.User.ID
			d.MyPage = place/scorePageSize + 1
		}
	}
	d.Top, d.Graph = h.graph[who].get(h.svc, who)
	if unfrozen {
		if _, top, err := h.svc.Scoreboard.LiveLeaderboardPageOf(v, who, 0, graphSeries, true); err == nil {
			d.Top, d.Graph = top, scoreGraph(top)
		}
	}
	h.render(w, r, "scoreboard", page{Title: "Scoreboard", Viewer: v, Data: d})
}

// graphCache keeps the top 10 and their graph for one version of the
// leaderboard: the same for every visitor, drawn once per change.
type graphCache struct {
	mu      sync.Mutex
	version uint64
	valid   bool
	top     []live.RankedEntry
	svg     template.HTML
}

func (c *graphCache) get(svc *platform.Service, who live.Who) ([]live.RankedEntry, template.HTML) {
	v := svc.Scoreboard.LeaderboardVersion()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid || c.version != v {
		_, c.top = svc.Scoreboard.LeaderboardPageOf(who, 0, graphSeries, true)
		c.svg, c.version, c.valid = scoreGraph(c.top), v, true
	}
	return c.top, c.svg
}

// Graph geometry, in the SVG's own units (it scales to its box).
const (
	graphW, graphH        = 800.0, 320.0
	graphLeft, graphRight = 56.0, 16.0
	graphTop, graphBottom = 16.0, 36.0
	graphSeries           = 10
)

// scoreGraph draws the score over time of the players given (the top 10)
// as an SVG of step lines, one per player, coloured by CSS classes so it
// follows the theme, with a title and a description for screen readers
// (the table under it holds the same numbers). No script: it fits the CSP.
func scoreGraph(top []live.RankedEntry) template.HTML {
	if len(top) == 0 {
		return ""
	}
	start, end := time.Time{}, time.Time{}
	maxPts := 0
	for _, e := range top {
		for _, s := range e.Solves {
			if start.IsZero() || s.SolvedAt.Before(start) {
				start = s.SolvedAt
			}
			if s.SolvedAt.After(end) {
				end = s.SolvedAt
			}
		}
		maxPts = max(maxPts, e.TotalPoints)
	}
	if !end.After(start) {
		end = start.Add(time.Hour)
	}
	if maxPts == 0 {
		maxPts = 1
	}
	x := func(t time.Time) float64 {
		return graphLeft + (graphW-graphLeft-graphRight)*float64(t.Sub(start))/float64(end.Sub(start))
	}
	y := func(p int) float64 {
		return graphH - graphBottom - (graphH-graphTop-graphBottom)*float64(p)/float64(maxPts)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="graph" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="graph-title graph-desc">`, graphW, graphH)
	b.WriteString(`<title id="graph-title">Score over time of the top 10</title>`)
	fmt.Fprintf(&b, `<desc id="graph-desc">From %s to %s UTC; the table below lists the same players and points.</desc>`,
		start.UTC().Format("Jan 2 15:04"), end.UTC().Format("Jan 2 15:04"))
	// Axes and gridlines: points on the left, times along the bottom.
	for i := 0; i <= 4; i++ {
		p := maxPts * i / 4
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, graphLeft, graphW-graphRight, y(p), y(p))
		fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%.1f" text-anchor="end">%d</text>`, graphLeft-6, y(p)+4, p)
	}
	for i := 0; i <= 4; i++ {
		t := start.Add(end.Sub(start) * time.Duration(i) / 4)
		anchor := map[int]string{0: "start", 4: "end"}[i] // the ends stay inside the box
		if anchor == "" {
			anchor = "middle"
		}
		fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%.1f" text-anchor="%s">%s</text>`, x(t), graphH-12, anchor, t.UTC().Format("Jan 2 15:04"))
	}
	for i, e := range top {
		if i >= graphSeries {
			break
		}
		var pts strings.Builder
		score := 0
		fmt.Fprintf(&pts, "%.1f,%.1f", x(start), y(0))
		for _, s := range e.Solves {
			fmt.Fprintf(&pts, " %.1f,%.1f", x(s.SolvedAt), y(score))
			score += s.Points
			fmt.Fprintf(&pts, " %.1f,%.1f", x(s.SolvedAt), y(score))
		}
		fmt.Fprintf(&pts, " %.1f,%.1f", x(end), y(score))
		fmt.Fprintf(&b, `<polyline class="s%d" points="%s"><title>%s: %d</title></polyline>`, i, pts.String(),
			template.HTMLEscapeString(e.Name), e.TotalPoints)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // #nosec: numbers and escaped names only
}
