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
	ev := h.svc.Event.Current()
	d.Top, d.Graph = h.graph[who].get(h.svc, who, ev)
	if unfrozen {
		if _, top, err := h.svc.Scoreboard.LiveLeaderboardPageOf(v, who, 0, graphSeries, true); err == nil {
			d.Top, d.Graph = top, scoreGraph(top, ev.Start, graphEnd(ev, false))
		}
	}
	h.render(w, r, "scoreboard", page{Title: "Scoreboard", Viewer: v, Data: d})
}

// graphCache keeps the top 10 and their graph for one version of the
// leaderboard and one end of the time axis: the same for every visitor,
// drawn once per change and at most once a minute.
type graphCache struct {
	mu      sync.Mutex
	version uint64
	end     time.Time
	valid   bool
	top     []live.RankedEntry
	svg     template.HTML
}

func (c *graphCache) get(svc *platform.Service, who live.Who, ev live.EventView) ([]live.RankedEntry, template.HTML) {
	v := svc.Scoreboard.LeaderboardVersion()
	end := graphEnd(ev, true)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid || c.version != v {
		_, c.top = svc.Scoreboard.LeaderboardPageOf(who, 0, graphSeries, true)
		c.valid = false
	}
	if !c.valid || !c.end.Equal(end) {
		c.svg, c.version, c.end, c.valid = scoreGraph(c.top, ev.Start, end), v, end, true
	}
	return c.top, c.svg
}

// graphEnd is where the graph's time axis ends: now (to the minute) while
// the event runs, its end once it is over, and for the public during a
// freeze the freeze, where their standings stop. (scoreGraph moves it to
// the last solve drawn, should that be later.)
func graphEnd(ev live.EventView, public bool) time.Time {
	end := ev.Now.Truncate(time.Minute)
	if ev.End != nil && ev.End.Before(end) {
		end = *ev.End
	}
	if public && ev.Frozen && ev.FrozenAt.Before(end) {
		end = ev.FrozenAt
	}
	return end
}

// graphSeries is how many players the graph draws.
const graphSeries = 10

// scoreGraph draws the score over time of the players given (the top 10),
// from the event's start (or the first solve, if earlier or without a
// start) to end: step lines, one per player, in an SVG stretched to its
// box and coloured by CSS classes so it follows the theme, with a title and
// a description for screen readers (the table under it holds the same
// numbers). The axes' labels are HTML beside it, hidden from screen
// readers, so that they keep a readable size on a phone. No script: it
// fits the CSP.
func scoreGraph(top []live.RankedEntry, eventStart *time.Time, end time.Time) template.HTML {
	if len(top) == 0 {
		return ""
	}
	var start time.Time
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
	if eventStart != nil && (start.IsZero() || eventStart.Before(start)) {
		start = *eventStart
	}
	if !end.After(start) {
		end = start.Add(time.Hour)
	}
	if maxPts == 0 {
		maxPts = 1
	}
	// The SVG's own units: 1000 by 1000, stretched to the box (the lines
	// keep their width: non-scaling strokes).
	x := func(t time.Time) float64 { return 1000 * float64(t.Sub(start)) / float64(end.Sub(start)) }
	y := func(p int) float64 { return 1000 - 1000*float64(p)/float64(maxPts) }
	var b strings.Builder
	b.WriteString(`<div class="graph-area"><ol class="graph-y" aria-hidden="true">`)
	for i := 4; i >= 0; i-- {
		fmt.Fprintf(&b, `<li class="t%d">%d</li>`, i, maxPts*i/4)
	}
	b.WriteString(`</ol><svg class="graph" viewBox="0 0 1000 1000" preserveAspectRatio="none" role="img" aria-labelledby="graph-title graph-desc">`)
	b.WriteString(`<title id="graph-title">Score over time of the top 10</title>`)
	fmt.Fprintf(&b, `<desc id="graph-desc">From %s to %s UTC; the table below lists the same players and points.</desc>`,
		start.UTC().Format("Jan 2 15:04"), end.UTC().Format("Jan 2 15:04"))
	for i := 0; i <= 4; i++ {
		fmt.Fprintf(&b, `<line class="grid" x1="0" x2="1000" y1="%.1f" y2="%.1f"/>`, y(maxPts*i/4), y(maxPts*i/4))
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
	b.WriteString(`</svg><ol class="graph-x" aria-hidden="true">`)
	for i := 0; i <= 4; i++ {
		t := start.Add(end.Sub(start) * time.Duration(i) / 4)
		fmt.Fprintf(&b, `<li class="t%d">%s</li>`, i, t.UTC().Format("Jan 2 15:04"))
	}
	b.WriteString(`</ol></div>`)
	return template.HTML(b.String()) // #nosec: numbers and escaped names only
}
