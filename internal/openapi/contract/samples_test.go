package contract

import (
	"encoding/json"
	"strconv"
	"strings"
)

// ---------------------------------------------------------------------------
// Sample bodies. Each function returns a fresh, valid value.

const ts = "2026-01-05T10:00:00.000Z"

type obj = map[string]any
type arr = []any

func challengeSummary() obj {
	return obj{
		"id":            "0194a3b0-0000-7000-8000-000000000001",
		"slug":          "baby-rsa",
		"categories":    arr{"crypto"},
		"title":         "Baby RSA",
		"description":   "Decrypt the message.",
		"difficulty":    "Easy",
		"points":        100,
		"fileUrl":       "https://ctf.example.com/files/abc/handout.zip",
		"fileName":      "handout.zip",
		"hasInstance":   false,
		"dockerPort":    nil,
		"type":          "standard",
		"attemptsCount": 3,
		"createdAt":     ts,
		"creator":       obj{"id": "u1", "name": "Alice", "username": "alice"},
		"solved":        true,
		"solvesCount":   1,
		"avgStars":      4.5,
	}
}

func minimalChallengeSummary() obj {
	return obj{
		"id":            "c2",
		"slug":          "warmup",
		"categories":    arr{},
		"title":         "Warmup",
		"description":   "",
		"difficulty":    "Insane",
		"points":        0,
		"hasInstance":   true,
		"type":          "standard",
		"attemptsCount": 0,
		"createdAt":     ts,
		"solved":        false,
		"solvesCount":   0,
	}
}

func challengeDetail() obj {
	c := challengeSummary()
	c["unlocked"] = true
	c["submittedFlag"] = "flag{exact}"
	c["avgDifficulty"] = 3.25
	c["totalReviews"] = 2
	c["myReview"] = obj{"stars": 5, "difficulty": 3}
	return c
}

func anonymousChallengeDetail() obj {
	c := minimalChallengeSummary()
	c["unlocked"] = true
	c["submittedFlag"] = nil
	c["avgStars"] = nil
	c["avgDifficulty"] = nil
	c["totalReviews"] = 0
	c["myReview"] = nil
	c["creator"] = nil
	return c
}

func submitResult() obj {
	return obj{"result": obj{
		"success": true,
		"points":  100,
		"newBadges": arr{
			obj{"id": "first-solve", "title": "First solve", "icon": "🚩", "image": nil},
			obj{"id": "first-blood", "title": "First blood", "icon": "drop", "image": "https://ctf.example.com/b.png"},
		},
	}}
}

func writeups() obj {
	return obj{
		"challenge": obj{
			"id":         "c1",
			"title":      "Baby RSA",
			"categories": arr{"crypto"},
			"difficulty": "Easy",
			"points":     100,
		},
		"writeups": arr{
			obj{
				"id":          "w1",
				"userId":      "u1",
				"challengeId": "c1",
				"title":       "Small e",
				"content":     "Cube root.",
				"images":      arr{"https://ctf.example.com/i.png"},
				"status":      "approved",
				"createdAt":   ts,
				"updatedAt":   ts,
				"user":        obj{"username": "alice", "name": nil},
			},
			obj{"id": "w2", "status": "pending"},
		},
	}
}

func leaderboard() obj {
	return obj{"leaderboard": arr{
		obj{
			"id":           "u1",
			"name":         "Alice",
			"username":     "alice",
			"image":        nil,
			"totalPoints":  300,
			"totalSolves":  2,
			"lastSolvedAt": "2026-01-05T11:00:00.000Z",
			"solves": arr{
				obj{"solvedAt": ts, "points": 100},
				obj{"solvedAt": "2026-01-05T11:00:00.000Z", "points": 200},
			},
		},
		obj{
			"id":          "u2",
			"name":        "bob",
			"totalPoints": 100,
			"totalSolves": 1,
			"solves":      arr{obj{"solvedAt": ts, "points": 100}},
		},
	}}
}

func profileChallenge() obj {
	return obj{
		"id":         "c1",
		"slug":       "baby-rsa",
		"title":      "Baby RSA",
		"points":     100,
		"categories": arr{"crypto"},
		"difficulty": "Easy",
		"createdAt":  ts,
	}
}

func publicProfile() obj {
	return obj{
		"id":                "u1",
		"name":              "Alice",
		"username":          "alice",
		"image":             nil,
		"createdAt":         "2026-01-01T00:00:00.000Z",
		"solvedChallenges":  arr{obj{"solvedAt": ts, "challenge": profileChallenge()}},
		"createdChallenges": arr{obj{"id": "c9", "title": "Mine", "points": 50, "categories": arr{}, "difficulty": "Hard"}},
		"badges":            arr{obj{"badgeId": "first-solve", "awardedAt": ts}},
	}
}

func fullPublicProfile() obj {
	p := publicProfile()
	p["rank"] = 1
	p["totalPoints"] = 100
	p["firstBloodCount"] = 1
	p["top3Count"] = 1
	p["categoryCounts"] = obj{"crypto": 1}
	p["difficultyCounts"] = obj{"Easy": 1}
	return p
}

func myProfile() obj {
	p := fullPublicProfile()
	p["email"] = "alice@example.com"
	p["twoFactorEnabled"] = false
	p["mcpApiKeys"] = arr{
		obj{"id": "k1", "name": "laptop", "keyPrefix": "fsk_ab12", "createdAt": ts, "lastUsedAt": nil, "revokedAt": nil},
		obj{"id": "k2", "name": "old", "keyPrefix": "fsk_cd34", "createdAt": ts, "lastUsedAt": ts, "revokedAt": "2026-01-06T00:00:00.000Z"},
	}
	return p
}

func errBody(msg string) obj { return obj{"error": msg} }

// ---------------------------------------------------------------------------
// Mutations. Paths are dotted, with array indices: "challenges.0.points".

func clone(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// walk returns the container holding the last element of path, and that key.
func walk(root any, path string) (any, string) {
	parts := strings.Split(path, ".")
	cur := root
	for _, p := range parts[:len(parts)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			i, _ := strconv.Atoi(p)
			cur = c[i]
		default:
			panic("bad path " + path)
		}
	}
	return cur, parts[len(parts)-1]
}

func set(v any, path string, value any) any {
	out := clone(v)
	c, k := walk(out, path)
	switch c := c.(type) {
	case map[string]any:
		c[k] = value
	case []any:
		i, _ := strconv.Atoi(k)
		c[i] = value
	default:
		panic("bad path " + path)
	}
	return out
}

func del(v any, path string) any {
	out := clone(v)
	c, k := walk(out, path)
	m, ok := c.(map[string]any)
	if !ok {
		panic("bad path " + path)
	}
	if _, ok := m[k]; !ok {
		panic("no field " + path)
	}
	delete(m, k)
	return out
}

func wrap(key string, v any) obj { return obj{key: v} }

func errBody2(v any) obj { return obj{"error": v} }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
