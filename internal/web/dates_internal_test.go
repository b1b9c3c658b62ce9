package web

import (
	"testing"
	"time"
)

func TestTimeElement(t *testing.T) {
	at := time.Date(2026, 11, 26, 14, 5, 0, 0, time.UTC)
	withSeconds := at.Add(47*time.Second + 524*time.Millisecond)
	text := "2026-11-26T14:05:47.524Z"
	for _, tc := range []struct {
		name string
		in   any
		want string
	}{
		{"a time on the minute", at, `<time datetime="2026-11-26T14:05:00.000Z" data-local>26 Nov 2026, 14:05 UTC</time>`},
		{"seconds shown when it has some", withSeconds, `<time datetime="2026-11-26T14:05:47.524Z" data-local>26 Nov 2026, 14:05:47 UTC</time>`},
		{"another zone said in UTC", at.In(time.FixedZone("X", 3600)), `<time datetime="2026-11-26T14:05:00.000Z" data-local>26 Nov 2026, 14:05 UTC</time>`},
		{"a pointer", &at, `<time datetime="2026-11-26T14:05:00.000Z" data-local>26 Nov 2026, 14:05 UTC</time>`},
		{"a view's text", text, `<time datetime="2026-11-26T14:05:47.524Z" data-local>26 Nov 2026, 14:05:47 UTC</time>`},
		{"a pointer to a view's text", &text, `<time datetime="2026-11-26T14:05:47.524Z" data-local>26 Nov 2026, 14:05:47 UTC</time>`},
		{"nil", (*time.Time)(nil), ""},
		{"a nil text", (*string)(nil), ""},
		{"the zero time", time.Time{}, ""},
		{"not a time", "yesterday", ""},
		{"another kind", 42, ""},
	} {
		if got := string(timeElement(tc.in)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
