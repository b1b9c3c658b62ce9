package synth

import "github.com/flagshipctf/flagship/internal/store"

// Snapshot is the event as the database's snapshot would give it, flags
// compiled and solves numbered, without a database: for benchmarks of the
// hot state alone.
func (e *Event) Snapshot() (*store.Snapshot, error) {
	snap := &store.Snapshot{Users: e.Users, Reviews: e.Reviews, Writeups: e.Writeups, APIKeys: e.APIKeys}
	for _, c := range e.Challenges {
		for i := range c.Flags {
			if err := c.Flags[i].Compile(); err != nil {
				return nil, err
			}
		}
		snap.Challenges = append(snap.Challenges, c)
	}
	for i, s := range e.Solves {
		s.Seq = int64(i + 1)
		snap.Solves = append(snap.Solves, s)
	}
	snap.MaxSolveSeq = int64(len(snap.Solves))
	return snap, nil
}
