package web

import (
	"html/template"
	"strings"
)

// Icons are small inline SVGs drawn with the text's colour, never emoji: a
// machine without an emoji font shows empty boxes for those. Each is
// decorative (aria-hidden): the text beside it says what it means, to
// screen readers too. Templates write {{icon "check"}}; a badge's icon is
// {{badgeIcon .ID}}.
var icons = map[string]string{
	// The event's flag, in the top bar.
	"flag": `<path d="M3.5 14.5V1.75"/><path d="M3.5 2.25h9l-2.25 3.25 2.25 3.25h-9" fill="currentColor"/>`,
	// The theme switch: to the light theme, to the dark one.
	"sun":  `<circle cx="8" cy="8" r="3"/><path d="M8 1v1.75M8 13.25V15M1 8h1.75M13.25 8H15M3.05 3.05l1.24 1.24M11.71 11.71l1.24 1.24M3.05 12.95l1.24-1.24M11.71 4.29l1.24-1.24"/>`,
	"moon": `<path d="M13.5 10.1A6 6 0 0 1 5.9 2.5 6 6 0 1 0 13.5 10.1z"/>`,
	// Marks: solved, locked, the rating.
	"check": `<path d="M2.5 8.5l3.5 3.5 7.5-8"/>`,
	"lock":  `<rect x="3" y="7" width="10" height="7.5" rx="1.5"/><path d="M5.25 7V5a2.75 2.75 0 0 1 5.5 0v2"/>`,
	"star":  `<path d="M8 1.6l1.95 4 4.4.62-3.2 3.08.76 4.37L8 11.6l-3.91 2.07.76-4.37-3.2-3.08 4.4-.62z" fill="currentColor"/>`,
	// Badges.
	"hand":   `<path d="M5 8.5V3.25a1 1 0 0 1 2 0V7.5M7 7V2.25a1 1 0 0 1 2 0V7M9 7V3a1 1 0 0 1 2 0v4.5M11 7.5V5.25a1 1 0 0 1 2 0V10a5 5 0 0 1-5 5H7.5a4.5 4.5 0 0 1-3.9-2.25L1.9 9.8a1 1 0 0 1 1.7-1.05L5 10.5"/>`,
	"target": `<circle cx="8" cy="8" r="6.5"/><circle cx="8" cy="8" r="3.75"/><circle cx="8" cy="8" r="1.1" fill="currentColor"/>`,
	"medal":  `<path d="M5.25 1.5l1.75 5M10.75 1.5L9 6.5"/><circle cx="8" cy="10.25" r="4.25"/><path d="M8 8.25v4"/>`,
	"drop":   `<path d="M8 1.5S3.25 7 3.25 10a4.75 4.75 0 0 0 9.5 0C12.75 7 8 1.5 8 1.5z" fill="currentColor"/>`,
	"flame":  `<path d="M8 15c-3 0-5-2-5-4.75C3 7 6.5 5.5 6.25 1.5 9.5 3 13 6.25 13 10.25 13 13 11 15 8 15z"/><path d="M8 15c-1.25 0-2.25-.9-2.25-2.25C5.75 11 8 10 8 8.5c1.5 1 2.25 2.5 2.25 4.25C10.25 14.1 9.25 15 8 15z" fill="currentColor"/>`,
	"trophy": `<path d="M4.5 1.75h7V6a3.5 3.5 0 0 1-7 0z"/><path d="M4.5 3H2.25v1.25A2.5 2.5 0 0 0 4.6 6.75M11.5 3h2.25v1.25a2.5 2.5 0 0 1-2.35 2.5M8 9.5v2.75M5 14.5h6M6 14.5l.5-2.25h3l.5 2.25"/>`,
}

// badgeIcons is the icon of each badge of the catalogue (ctf.Badges); a
// category's badge is the trophy.
var badgeIcons = map[string]string{
	"first-solve":  "flag",
	"solves-5":     "hand",
	"solves-25":    "target",
	"solves-100":   "medal",
	"first-blood":  "drop",
	"first-insane": "flame",
}

// icon is the named icon as inline SVG, the size of the text around it.
// An unknown name is a mistake of a template: it panics at the first
// render of the page (every page is rendered by the tests).
func icon(name string) template.HTML {
	body, ok := icons[name]
	if !ok {
		panic("web: no icon " + name)
	}
	// Its strokes are drawn by app.css (.icon): the markup stays short on
	// a board of many cards.
	return template.HTML(`<svg class="icon" viewBox="0 0 16 16" aria-hidden="true">` + body + `</svg>`) // #nosec: constant markup
}

// badgeIcon is the icon of the badge of id.
func badgeIcon(id string) template.HTML {
	if name, ok := badgeIcons[id]; ok {
		return icon(name)
	}
	if strings.HasPrefix(id, "category-") {
		return icon("trophy")
	}
	return icon("star")
}
