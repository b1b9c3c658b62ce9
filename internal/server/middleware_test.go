package server

import "testing"

func TestRouteLabel(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ pattern, want string }{
		{"GET /api/public/challenges/{slug}", "/api/public/challenges/{slug}"},
		{"POST /api/public/challenges/{slug}/submit", "/api/public/challenges/{slug}/submit"},
		{"/api/public/leaderboard", "/api/public/leaderboard"},
		{"/api/public/", "/api/public/"},
		{"GET  /{$}", "/{$}"},
		{"", "unmatched"},
	} {
		if got := routeLabel(c.pattern); got != c.want {
			t.Errorf("routeLabel(%q) = %q, want %q", c.pattern, got, c.want)
		}
	}
}
