package contract

import (
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The document itself.

func TestDocument(t *testing.T) {
	v := newValidator(t)
	doc := v.Document()
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if doc.Info == nil || doc.Info.Version != "1.0.0" {
		t.Errorf("info.version, want 1.0.0")
	}

	const (
		none     = "none"
		optional = "optional"
		required = "required"
	)
	// Statuses per operation: the contract's success and error statuses,
	// plus docs/product.md's (submit 403, 413, 429; health 503; 401 for a bad
	// API key everywhere; 304 on GETs; 405 everywhere), plus the
	// leaderboard's 400 for a bad limit or offset (an extension), plus a
	// player's own instance (an extension: docs/product.md#instances), plus
	// a challenge's hints (an extension: docs/product.md#hints).
	want := map[string]struct {
		auth     string
		statuses []int
	}{
		"GET /api/public/health":                               {none, []int{200, 304, 401, 405, 503}},
		"GET /api/public/challenges":                           {optional, []int{200, 304, 401, 405, 500}},
		"GET /api/public/challenges/{slug}":                    {optional, []int{200, 304, 401, 404, 405, 500}},
		"POST /api/public/challenges/{slug}/submit":            {required, []int{200, 400, 401, 403, 404, 405, 409, 413, 429, 500, 503}},
		"GET /api/public/challenges/{slug}/writeups":           {required, []int{200, 304, 401, 403, 404, 405, 500}},
		"GET /api/public/challenges/{slug}/hints":              {optional, []int{200, 304, 401, 404, 405, 500}},
		"POST /api/public/challenges/{slug}/hints/{id}/unlock": {required, []int{200, 401, 403, 404, 405, 500, 503}},
		"GET /api/public/challenges/{slug}/instance":           {required, []int{200, 304, 401, 404, 405, 500, 503}},
		"POST /api/public/challenges/{slug}/instance":          {required, []int{200, 201, 401, 403, 404, 405, 409, 500, 503}},
		"DELETE /api/public/challenges/{slug}/instance":        {required, []int{204, 401, 403, 404, 405, 500, 503}},
		"POST /api/public/challenges/{slug}/instance/extend":   {required, []int{200, 401, 403, 404, 405, 409, 500, 503}},
		"GET /api/public/leaderboard":                          {none, []int{200, 304, 400, 401, 405, 500}},
		"GET /api/public/me":                                   {required, []int{200, 304, 401, 405, 500}},
		"GET /api/public/profiles/{userId}":                    {none, []int{200, 304, 401, 405, 500}},
	}
	// The contract's error statuses, which must all be declared.
	contractErrors := map[string][]int{
		"GET /api/public/challenges":                 {500},
		"GET /api/public/challenges/{slug}":          {404, 500},
		"POST /api/public/challenges/{slug}/submit":  {400, 401, 404, 409, 500},
		"GET /api/public/challenges/{slug}/writeups": {401, 403, 404, 500},
		"GET /api/public/leaderboard":                {500},
		"GET /api/public/me":                         {401, 500},
		"GET /api/public/profiles/{userId}":          {500},
		"GET /api/public/health":                     {},
	}

	if n := doc.Paths.Len(); n != 12 {
		t.Errorf("%d paths, want 12: %v", n, doc.Paths.InMatchingOrder())
	}
	seen := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + path
			seen[key] = true
			w, ok := want[key]
			if !ok {
				t.Errorf("unexpected operation %s", key)
				continue
			}
			var got []int
			for code := range op.Responses.Map() {
				n, err := strconv.Atoi(code)
				if err != nil {
					t.Errorf("%s: response %q is not a status code", key, code)
					continue
				}
				got = append(got, n)
			}
			sort.Ints(got)
			if !slices.Equal(got, w.statuses) {
				t.Errorf("%s: statuses %v, want %v", key, got, w.statuses)
			}
			for _, code := range contractErrors[key] {
				if !slices.Contains(got, code) {
					t.Errorf("%s: the contract's status %d is not declared", key, code)
				}
			}
			for _, code := range got {
				resp := op.Responses.Status(code).Value
				mt := resp.Content.Get("application/json")
				switch {
				case code == 304 || code == 204:
					if len(resp.Content) != 0 {
						t.Errorf("%s: %d declares a body", key, code)
					}
				case mt == nil || mt.Schema == nil:
					t.Errorf("%s: %d declares no application/json body", key, code)
				case code >= 400 && !(key == "GET /api/public/health" && code == 503):
					if mt.Schema.Ref != "#/components/schemas/ErrorResponse" {
						t.Errorf("%s: %d body is %q, want ErrorResponse", key, code, mt.Schema.Ref)
					}
				}
			}
			for _, code := range []int{429, 503} {
				if !slices.Contains(got, code) {
					continue
				}
				if h := op.Responses.Status(code).Value.Headers["Retry-After"]; h == nil || !h.Value.Required {
					t.Errorf("%s: %d without a required Retry-After header", key, code)
				}
			}

			// Security.
			if op.Security == nil {
				t.Errorf("%s: no security declared", key)
				continue
			}
			sec := *op.Security
			hasEmpty := slices.ContainsFunc(sec, func(r openapi3.SecurityRequirement) bool { return len(r) == 0 })
			schemes := map[string]bool{}
			for _, r := range sec {
				for name := range r {
					schemes[name] = true
				}
			}
			switch w.auth {
			case none:
				if len(sec) != 0 {
					t.Errorf("%s: security %v, want none", key, sec)
				}
			case optional, required:
				if hasEmpty != (w.auth == optional) {
					t.Errorf("%s: empty requirement present = %v, want auth %s", key, hasEmpty, w.auth)
				}
				for _, s := range []string{"bearerAuth", "apiKeyAuth", "sessionCookie"} {
					if !schemes[s] {
						t.Errorf("%s: scheme %s not accepted", key, s)
					}
				}
			}
		}
	}
	for key := range want {
		if !seen[key] {
			t.Errorf("missing operation %s", key)
		}
	}

	// Security schemes.
	ss := doc.Components.SecuritySchemes
	if s := ss["bearerAuth"]; s == nil || s.Value.Type != "http" || s.Value.Scheme != "bearer" {
		t.Error("bearerAuth: want http bearer")
	}
	if s := ss["apiKeyAuth"]; s == nil || s.Value.Type != "apiKey" || s.Value.In != "header" || s.Value.Name != "X-API-Key" {
		t.Error("apiKeyAuth: want apiKey in header X-API-Key")
	}
	if s := ss["sessionCookie"]; s == nil || s.Value.Type != "apiKey" || s.Value.In != "cookie" || s.Value.Name != "flagship_session" {
		t.Error("sessionCookie: want apiKey in cookie flagship_session")
	}

	// Submit's request body.
	op := doc.Paths.Value("/api/public/challenges/{slug}/submit").Post
	if op.RequestBody == nil || !op.RequestBody.Value.Required {
		t.Fatal("submit: request body not required")
	}
	flag := op.RequestBody.Value.Content.Get("application/json").Schema.Value
	if !slices.Contains(flag.Required, "flag") || flag.Properties["flag"].Value.MinLength != 1 {
		t.Error("submit: want {flag: string, minLength 1} required")
	}

	// The contract's resources, strict where the contract defines them fully.
	schemas := doc.Components.Schemas
	for _, name := range []string{
		"ChallengeDifficulty", "ChallengeSummary", "ChallengeDetail", "ChallengeCreator",
		"ChallengeReview", "SubmitFlagResult", "BadgeAward", "LeaderboardEntry", "LeaderboardSolve",
		"PublicProfile", "MyProfile", "ProfileSolve", "ProfileChallenge", "ProfileBadge", "McpApiKey",
		"ChallengeWriteupsResponse", "Writeup", "ErrorResponse", "Instance", "InstanceResponse", "InstanceRunningResponse",
		"Hint", "HintList",
	} {
		ref := schemas[name]
		if ref == nil {
			t.Errorf("schema %s missing", name)
			continue
		}
		s := ref.Value
		if name == "ChallengeDifficulty" {
			if !slices.Equal(s.Enum, []any{"Easy", "Medium", "Hard", "Insane"}) {
				t.Errorf("ChallengeDifficulty enum %v", s.Enum)
			}
			continue
		}
		if !s.Type.Includes("object") {
			t.Errorf("schema %s: type %v, want object", name, s.Type)
		}
		if s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has {
			t.Errorf("schema %s: want additionalProperties: false", name)
		}
	}
	if !schemas["ChallengeCreator"].Value.Type.IncludesNull() {
		t.Error("ChallengeCreator: want object or null")
	}
	my := schemas["MyProfile"].Value
	for _, f := range []string{"rank", "totalPoints", "firstBloodCount", "top3Count", "email", "twoFactorEnabled"} {
		if !slices.Contains(my.Required, f) {
			t.Errorf("MyProfile: %s not required", f)
		}
	}
	if slices.Contains(schemas["PublicProfile"].Value.Required, "rank") {
		t.Error("PublicProfile: rank is optional")
	}
	if schemas["PublicProfile"].Value.Properties["email"] != nil {
		t.Error("PublicProfile: must not have email")
	}
}

func TestConcurrentUse(t *testing.T) {
	v := newValidator(t)
	body := []byte(mustJSON(leaderboard()))
	bad := []byte(mustJSON(del(leaderboard(), "leaderboard.0.name")))
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("GET", board, nil)
			if err := v.ValidateResponse(req, 200, jsonHeader(), body); err != nil {
				t.Errorf("%d: %v", i, err)
			}
			if err := v.ValidateResponse(req, 200, jsonHeader(), bad); err == nil {
				t.Errorf("%d: want an error", i)
			}
		}()
	}
	wg.Wait()
}

// TestErrorMessage shows what a failure looks like, so that a test failing
// in another package points at the field at fault.
func TestErrorMessage(t *testing.T) {
	v := newValidator(t)
	req := httptest.NewRequest("GET", challenges, nil)
	body := mustJSON(del(wrap("challenges", arr{challengeSummary()}), "challenges.0.solvesCount"))
	err := v.ValidateResponse(req, 200, jsonHeader(), []byte(body))
	if err == nil {
		t.Fatal("want an error")
	}
	t.Log(err)
	for _, want := range []string{"GET /api/public/challenges", "200", "solvesCount"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestNullabilityBothValidators checks OpenAPI 3.1 nullability (type arrays
// with "null", anyOf with {"type": "null"}) on both validators kin-openapi
// uses for 3.1 documents (see the package comment).
func TestNullabilityBothValidators(t *testing.T) {
	v := newValidator(t)
	schemas := v.Document().Components.Schemas
	opts := []openapi3.SchemaValidationOption{openapi3.EnableJSONSchema2020(), openapi3.VisitAsResponse()}
	visit := func(name string, value any) error {
		return schemas[name].Value.VisitJSON(clone(value), opts...)
	}

	// ChallengeCreator has no $ref: JSON Schema 2020-12 validator.
	for _, c := range []struct {
		value any
		ok    bool
	}{
		{nil, true},
		{obj{}, true},
		{obj{"id": "u1", "name": nil, "username": nil}, true},
		{obj{"id": nil}, false},
		{obj{"name": 1}, false},
		{obj{"email": "x"}, false},
		{"alice", false},
	} {
		if err := visit("ChallengeCreator", c.value); (err == nil) != c.ok {
			t.Errorf("ChallengeCreator %s: ok %v, got %v", mustJSON(c.value), c.ok, err)
		}
	}
	// ChallengeSummary refers to other components: kin-openapi's validator.
	s := challengeSummary()
	for _, c := range []struct {
		value any
		ok    bool
	}{
		{s, true},
		{set(s, "fileUrl", nil), true},
		{set(s, "dockerPort", nil), true},
		{set(s, "avgStars", nil), true},
		{set(s, "creator", nil), true},
		{set(s, "title", nil), false},
		{set(s, "points", nil), false},
		{set(s, "difficulty", nil), false},
		{set(s, "createdAt", nil), false},
		{set(s, "categories", nil), false},
	} {
		if err := visit("ChallengeSummary", c.value); (err == nil) != c.ok {
			t.Errorf("ChallengeSummary %s: ok %v, got %v", mustJSON(c.value), c.ok, err)
		}
	}
	if err := visit("ChallengeSummary", nil); err == nil {
		t.Error("ChallengeSummary null: want an error")
	}
	// anyOf [$ref, null].
	for _, c := range []struct {
		value any
		ok    bool
	}{
		{wrap("profile", nil), true},
		{wrap("profile", publicProfile()), true},
		{wrap("profile", obj{}), false},
		{wrap("profile", "u1"), false},
	} {
		if err := visit("PublicProfileResponse", c.value); (err == nil) != c.ok {
			t.Errorf("PublicProfileResponse %s: ok %v, got %v", mustJSON(c.value), c.ok, err)
		}
	}
	props := schemas["ChallengeDetail"].Value.Properties
	for name, want := range map[string]bool{"fileUrl": true, "submittedFlag": true, "avgDifficulty": true, "title": false, "unlocked": false} {
		if got := props[name].Value.PermitsNull(openapi3.EnableJSONSchema2020()); got != want {
			t.Errorf("ChallengeDetail.%s PermitsNull = %v, want %v", name, got, want)
		}
	}
}
