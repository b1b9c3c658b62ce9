package contract

import "testing"

func TestLeaderboard(t *testing.T) {
	v := newValidator(t)
	l := leaderboard()
	get := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "GET", path: board, status: status, body: body, wantErr: wantErr}
	}
	runExchanges(t, v, []exchange{
		get("valid", 200, l, ""),
		get("empty", 200, wrap("leaderboard", arr{}), ""),
		get("lastSolvedAt null", 200, set(l, "leaderboard.0.lastSolvedAt", nil), ""),
		get("username null", 200, set(l, "leaderboard.0.username", nil), ""),
		get("name null", 200, set(l, "leaderboard.0.name", nil), "name"),
		get("name missing", 200, del(l, "leaderboard.0.name"), "name"),
		get("solves missing", 200, del(l, "leaderboard.1.solves"), "solves"),
		get("solve without solvedAt", 200, del(l, "leaderboard.0.solves.0.solvedAt"), "solvedAt"),
		get("solve extra", 200, set(l, "leaderboard.0.solves.0.challengeId", "c1"), "challengeId"),
		get("solve points string", 200, set(l, "leaderboard.0.solves.0.points", "100"), "points"),
		get("totalSolves string", 200, set(l, "leaderboard.0.totalSolves", "2"), "totalSolves"),
		get("totalPoints float", 200, set(l, "leaderboard.0.totalPoints", 300.5), "totalPoints"),
		get("entry extra", 200, set(l, "leaderboard.0.rank", 1), "rank"),
		get("lastSolvedAt malformed", 200, set(l, "leaderboard.0.lastSolvedAt", "05/01/2026"), "lastSolvedAt"),
		get("undeclared 418", 418, errBody("teapot"), "status 418 is not declared"),
		get("500", 500, errBody("internal error"), ""),
		get("304", 304, nil, ""),
	})
}

func TestMe(t *testing.T) {
	v := newValidator(t)
	p := wrap("profile", myProfile())
	get := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "GET", path: me, status: status, body: body, wantErr: wantErr}
	}
	runExchanges(t, v, []exchange{
		get("valid", 200, p, ""),
		get("without optional fields", 200, del(del(del(p, "profile.mcpApiKeys"), "profile.categoryCounts"), "profile.difficultyCounts"), ""),
		get("without rank", 200, del(p, "profile.rank"), "rank"),
		get("without totalPoints", 200, del(p, "profile.totalPoints"), "totalPoints"),
		get("without firstBloodCount", 200, del(p, "profile.firstBloodCount"), "firstBloodCount"),
		get("without top3Count", 200, del(p, "profile.top3Count"), "top3Count"),
		get("rank null", 200, set(p, "profile.rank", nil), "rank"),
		get("rank 0 (admin)", 200, set(p, "profile.rank", 0), ""),
		get("without email (required, nullable)", 200, del(p, "profile.email"), "email"),
		get("email null", 200, set(p, "profile.email", nil), ""),
		get("email malformed", 200, set(p, "profile.email", "not an email"), "email"),
		get("without twoFactorEnabled", 200, del(p, "profile.twoFactorEnabled"), "twoFactorEnabled"),
		get("without badges", 200, del(p, "profile.badges"), "badges"),
		get("name null", 200, set(p, "profile.name", nil), ""),
		get("name missing", 200, del(p, "profile.name"), "name"),
		get("api key with secret", 200, set(p, "profile.mcpApiKeys.0.key", "fsk_secret"), "key"),
		get("api key without keyPrefix", 200, del(p, "profile.mcpApiKeys.0.keyPrefix"), "keyPrefix"),
		get("api key revokedAt malformed", 200, set(p, "profile.mcpApiKeys.1.revokedAt", "revoked"), "revokedAt"),
		get("api key lastUsedAt missing", 200, del(p, "profile.mcpApiKeys.0.lastUsedAt"), ""),
		get("categoryCounts string value", 200, set(p, "profile.categoryCounts.crypto", "1"), "crypto"),
		get("solved challenge bad difficulty", 200, set(p, "profile.solvedChallenges.0.challenge.difficulty", "Trivial"), "difficulty"),
		get("solved challenge without title", 200, del(p, "profile.solvedChallenges.0.challenge.title"), "title"),
		get("solved challenge without slug (optional)", 200, del(p, "profile.solvedChallenges.0.challenge.slug"), ""),
		get("solved challenge extra", 200, set(p, "profile.solvedChallenges.0.challenge.description", "x"), "description"),
		get("solve without solvedAt", 200, del(p, "profile.solvedChallenges.0.solvedAt"), "solvedAt"),
		get("badge without awardedAt", 200, del(p, "profile.badges.0.awardedAt"), "awardedAt"),
		get("badge extra", 200, set(p, "profile.badges.0.title", "First"), "title"),
		get("profile extra", 200, set(p, "profile.passwordHash", "x"), "passwordHash"),
		get("profile null", 200, wrap("profile", nil), "!"),
		get("401", 401, errBody("authentication required"), ""),
		get("500", 500, errBody("internal error"), ""),
		get("404 undeclared", 404, errBody("no such user"), "status 404 is not declared"),
		get("304", 304, nil, ""),
	})
}

func TestPublicProfile(t *testing.T) {
	v := newValidator(t)
	p := wrap("profile", publicProfile())
	full := wrap("profile", fullPublicProfile())
	get := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "GET", path: profile, status: status, body: body, wantErr: wantErr}
	}
	runExchanges(t, v, []exchange{
		get("valid", 200, p, ""),
		get("valid with stats", 200, full, ""),
		get("profile null", 200, wrap("profile", nil), ""),
		{name: "profile null, other id", method: "GET", path: "/api/public/profiles/x", status: 200, body: wrap("profile", nil)},
		get("profile missing", 200, obj{}, "profile"),
		get("with email", 200, set(p, "profile.email", "alice@example.com"), "email"),
		get("with email null", 200, set(p, "profile.email", nil), "email"),
		get("with twoFactorEnabled", 200, set(p, "profile.twoFactorEnabled", false), "twoFactorEnabled"),
		get("with mcpApiKeys", 200, set(p, "profile.mcpApiKeys", arr{}), "mcpApiKeys"),
		get("name missing", 200, del(p, "profile.name"), "name"),
		get("name null", 200, set(p, "profile.name", nil), ""),
		get("image missing", 200, del(p, "profile.image"), "image"),
		get("id null", 200, set(p, "profile.id", nil), "id"),
		get("createdAt malformed", 200, set(p, "profile.createdAt", "2026-01-01"), "createdAt"),
		get("rank string", 200, set(full, "profile.rank", "1"), "rank"),
		get("rank negative", 200, set(full, "profile.rank", -1), "rank"),
		get("created challenge without difficulty", 200, del(p, "profile.createdChallenges.0.difficulty"), "difficulty"),
		get("500", 500, errBody("internal error"), ""),
		get("404 undeclared", 404, errBody("no such user"), "status 404 is not declared"),
		get("304", 304, nil, ""),
	})
}
