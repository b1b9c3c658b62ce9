package live

import (
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The view types are the public shapes of the contract; their JSON tags are
// the contract's field names. Optional fields the contract allows to be null
// are always present, null when empty, so clients see one stable shape.

// Creator is the author of a challenge.
type Creator struct {
	ID       string  `json:"id"`
	Name     *string `json:"name"`
	Username *string `json:"username"`
}

// ChallengeSummary is a challenge in the list.
type ChallengeSummary struct {
	ID            string         `json:"id"`
	Slug          string         `json:"slug"`
	Categories    []string       `json:"categories"`
	Title         string         `json:"title"`
	Description   string         `json:"description"`
	Difficulty    ctf.Difficulty `json:"difficulty"`
	Points        int            `json:"points"`
	FileURL       *string        `json:"fileUrl"`
	FileName      *string        `json:"fileName"`
	HasInstance   bool           `json:"hasInstance"`
	DockerPort    *int           `json:"dockerPort"`
	Type          string         `json:"type"`
	AttemptsCount int64          `json:"attemptsCount"`
	CreatedAt     string         `json:"createdAt"`
	Creator       *Creator       `json:"creator"`
	Solved        bool           `json:"solved"`
	SolvesCount   int            `json:"solvesCount"`
	AvgStars      *float64       `json:"avgStars"`
	// Tags are the organiser's tags, which the web board shows and filters
	// by; the contract's summary has no field for them.
	Tags []string `json:"-"`
	// Scoring is how its value follows its solves (the web app's note on a
	// dynamic challenge); not in the contract either.
	Scoring ctf.Scoring `json:"-"`
}

// LeaderboardEntry is a ranked player. Times are left to the front door to
// format (the contract's are RFC 3339 with milliseconds, ctf.FormatTime).
type LeaderboardEntry struct {
	ID           string             `json:"id"`
	Name         string             `json:"name"` // the display name, else the username
	Username     string             `json:"username"`
	Image        string             `json:"image"` // "" for none
	TotalPoints  int                `json:"totalPoints"`
	LastSolvedAt time.Time          `json:"lastSolvedAt"`
	Solves       []LeaderboardSolve `json:"solves"` // in time order
}

// LeaderboardSolve is a solve in a leaderboard entry.
type LeaderboardSolve struct {
	SolvedAt time.Time `json:"solvedAt"`
	Points   int       `json:"points"`
}

// ReviewView is a user's review.
type ReviewView struct {
	Stars      int `json:"stars"`
	Difficulty int `json:"difficulty"`
}

// ChallengeDetail is one challenge with the caller's state.
type ChallengeDetail struct {
	ChallengeSummary
	Unlocked      bool        `json:"unlocked"`
	SubmittedFlag *string     `json:"submittedFlag"`
	AvgDifficulty *float64    `json:"avgDifficulty"`
	TotalReviews  int         `json:"totalReviews"`
	MyReview      *ReviewView `json:"myReview"`
}

// BadgeAward is a badge in a submit result.
type BadgeAward struct {
	ID    string  `json:"id"`
	Title string  `json:"title"`
	Icon  string  `json:"icon"`
	Image *string `json:"image"`
}

// SubmitResult is the answer to an accepted flag.
type SubmitResult struct {
	Success   bool         `json:"success"`
	Points    int          `json:"points"`
	NewBadges []BadgeAward `json:"newBadges"`
	// Practice: a practice solve (after the end, in practice mode), which
	// counts for no score; the web app says so (the API's answer does not
	// carry it).
	Practice bool `json:"-"`
}

// ProfileChallenge is a challenge as profiles show it.
type ProfileChallenge struct {
	ID         string         `json:"id"`
	Slug       string         `json:"slug"`
	Title      string         `json:"title"`
	Points     int            `json:"points"`
	Categories []string       `json:"categories"`
	Difficulty ctf.Difficulty `json:"difficulty"`
	CreatedAt  string         `json:"createdAt"`
}

// ProfileSolve is one solve in a profile.
type ProfileSolve struct {
	SolvedAt  string           `json:"solvedAt"`
	Challenge ProfileChallenge `json:"challenge"`
}

// ProfileBadge is a badge a user holds.
type ProfileBadge struct {
	BadgeID   string `json:"badgeId"`
	AwardedAt string `json:"awardedAt"`
}

// PublicProfile is what anyone may see of a user.
type PublicProfile struct {
	ID                string                 `json:"id"`
	Name              *string                `json:"name"`
	Username          *string                `json:"username"`
	Image             *string                `json:"image"`
	CreatedAt         string                 `json:"createdAt"`
	SolvedChallenges  []ProfileSolve         `json:"solvedChallenges"`
	CreatedChallenges []ProfileChallenge     `json:"createdChallenges"`
	Badges            []ProfileBadge         `json:"badges"`
	Rank              int                    `json:"rank"`
	TotalPoints       int                    `json:"totalPoints"`
	FirstBloodCount   int                    `json:"firstBloodCount"`
	Top3Count         int                    `json:"top3Count"`
	CategoryCounts    map[string]int         `json:"categoryCounts"`
	DifficultyCounts  map[ctf.Difficulty]int `json:"difficultyCounts"`
}

// APIKeyView is the metadata of an API key; never the secret.
type APIKeyView struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	KeyPrefix  string  `json:"keyPrefix"`
	CreatedAt  string  `json:"createdAt"`
	LastUsedAt *string `json:"lastUsedAt"`
	RevokedAt  *string `json:"revokedAt"`
	// ReadOnly: the key cannot submit (the web app marks it); not in the
	// API's answer, whose schema is fixed (openapi.json).
	ReadOnly bool `json:"-"`
}

// MyProfile is the caller's own profile.
type MyProfile struct {
	PublicProfile
	Email            *string      `json:"email"`
	TwoFactorEnabled bool         `json:"twoFactorEnabled"`
	McpAPIKeys       []APIKeyView `json:"mcpApiKeys"`
}

// WriteupChallenge heads a writeup listing.
type WriteupChallenge struct {
	ID         string         `json:"id"`
	Title      string         `json:"title"`
	Categories []string       `json:"categories"`
	Difficulty ctf.Difficulty `json:"difficulty"`
	Points     int            `json:"points"`
}

// WriteupUser names a writeup's author.
type WriteupUser struct {
	Username *string `json:"username"`
	Name     *string `json:"name"`
}

// WriteupView is one writeup.
type WriteupView struct {
	ID          string            `json:"id"`
	UserID      string            `json:"userId"`
	ChallengeID string            `json:"challengeId"`
	Title       string            `json:"title"`
	Content     string            `json:"content"`
	Images      []string          `json:"images"`
	Status      ctf.WriteupStatus `json:"status"`
	CreatedAt   string            `json:"createdAt"`
	UpdatedAt   string            `json:"updatedAt"`
	User        WriteupUser       `json:"user"`
}

// Writeups is the writeup listing of a challenge.
type Writeups struct {
	Challenge WriteupChallenge `json:"challenge"`
	Writeups  []WriteupView    `json:"writeups"`
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func keyView(k *apiKey) APIKeyView {
	kv := APIKeyView{ID: k.ID, Name: k.Name, KeyPrefix: k.Prefix, CreatedAt: ctf.FormatTime(k.CreatedAt), ReadOnly: k.ReadOnly}
	if t := msTime(k.lastUsed.Load()); t != nil {
		kv.LastUsedAt = strPtr(ctf.FormatTime(*t))
	}
	if k.RevokedAt != nil {
		kv.RevokedAt = strPtr(ctf.FormatTime(*k.RevokedAt))
	}
	return kv
}
