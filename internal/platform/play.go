package platform

import (
	"context"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// ChallengeListVersion is live.State.ChallengeListVersion.
func (s *Play) ChallengeListVersion() uint64 { return s.live.State().ChallengeListVersion() }

// ChallengeList is live.State.ChallengeList.
func (s *Play) ChallengeList(have func(challengeID string, version uint64) bool) (uint64, []live.ChallengeListRow) {
	return s.live.State().ChallengeList(have)
}

// MarksInList is live.State.MarksInList.
func (s *Play) MarksInList(userID string, solved, unlocked []bool) (uint64, []bool, []bool) {
	return s.live.State().MarksInList(userID, solved, unlocked)
}

// SolvedInList is live.State.SolvedInList.
func (s *Play) SolvedInList(userID string, solved []bool) (uint64, []bool) {
	return s.live.State().SolvedInList(userID, solved)
}

// ConnectionInfo is how players reach the service of the visible
// challenge of slug: its shared instance's connection line while it runs,
// else the challenge's own connection info ("" for none).
func (s *Play) ConnectionInfo(ctx context.Context, slug string) string {
	if conn := s.instances.sharedConnection(ctx, slug); conn != "" {
		return conn
	}
	return s.live.State().ConnectionInfo(slug)
}

// Prerequisites is live.State.Prerequisites.
func (s *Play) Prerequisites(slug string, v ctf.Viewer) (live.Requirements, error) {
	return s.live.State().Prerequisites(slug, v)
}

// Board is live.State.Board.
func (s *Play) Board(v ctf.Viewer) []live.ChallengeDetail { return s.live.State().Board(v) }

// Challenge is live.State.Challenge.
func (s *Play) Challenge(slug string, v ctf.Viewer) (live.ChallengeDetail, error) {
	return s.live.State().Challenge(slug, v)
}

// live.Writeups is live.State.Writeups.
func (s *Play) Writeups(ctx context.Context, slug string, v ctf.Viewer) (live.Writeups, error) {
	return s.live.State().Writeups(ctx, slug, v)
}
