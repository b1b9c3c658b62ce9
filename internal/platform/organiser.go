package platform

import (
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// Preview is live.State.Preview: an admin sees a hidden or pending
// challenge as players will.
func (s *Content) Preview(slug string, v ctf.Viewer) (live.Preview, error) {
	return s.live.State().Preview(slug, v)
}

// Solvers is live.State.Solvers: who solved a challenge and when.
func (s *Play) Solvers(slug string, v ctf.Viewer) ([]live.Solver, error) {
	return s.live.State().Solvers(slug, v)
}
