package web

import (
	"html/template"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Every instant a page shows is said one way (issue 20, fix 4): "26 Nov
// 2026, 14:05 UTC" (seconds only when it has some, as the audit log's
// entries do), in a <time datetime> element that app.js rewrites in the
// viewer's own time zone, keeping the UTC text in its title.

// readableTime is t as pages say it, in UTC.
func readableTime(t time.Time) string {
	u := t.UTC()
	layout := "2 Jan 2006, 15:04"
	if u.Second() != 0 {
		layout += ":05"
	}
	return u.Format(layout) + " UTC"
}

// timeOf reads what templates hand to "at": a time, a pointer to one, or
// a view's RFC 3339 text (live views keep times as the API says them).
func timeOf(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, !x.IsZero()
	case *time.Time:
		if x == nil {
			return time.Time{}, false
		}
		return *x, !x.IsZero()
	case *string:
		if x == nil {
			return time.Time{}, false
		}
		return timeOf(*x)
	case string:
		t, err := time.Parse(time.RFC3339Nano, x)
		return t, err == nil
	}
	return time.Time{}, false
}

// timeElement is v as a <time datetime data-local> element, or "" when v
// is no time (nil, zero, not RFC 3339: a template shows its own "never").
func timeElement(v any) template.HTML {
	t, ok := timeOf(v)
	if !ok {
		return ""
	}
	return template.HTML(`<time datetime="` + ctf.FormatTime(t) + `" data-local>` + // #nosec: digits, letters and punctuation of our own layouts
		template.HTMLEscapeString(readableTime(t)) + `</time>`)
}
