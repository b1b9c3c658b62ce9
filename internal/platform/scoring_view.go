package platform

import (
	"github.com/flagshipctf/flagship/internal/ctf"
)

// Scoring returns how the value of the challenge slug follows its solves
// (static, or dynamic with its initial value, minimum and decay), for
// anyone who may see the challenge: the web app says "worth 500, down to
// 100 as more players solve it" beside the value, which the challenge's
// points already give. An unknown challenge, or one v may not see, is
// ctf.ErrNoChallenge.
func (s *Play) Scoring(slug string, v ctf.Viewer) (ctf.Scoring, error) {
	if _, err := s.live.State().Challenge(slug, v); err != nil {
		return ctf.Scoring{}, err
	}
	c, _, _, ok := s.live.State().ChallengeForEdit(slug)
	if !ok {
		return ctf.Scoring{}, ctf.ErrNoChallenge
	}
	return c.Scoring, nil
}
