package platform

import "context"

// Ready reports whether this replica can take traffic: its hot state is
// built (Load has succeeded) and the database answers a read within a
// second. Unlike Healthy it never writes: a load balancer probes it often,
// and a replica whose state is loaded may serve reads while writes fail.
func (s *Service) Ready(ctx context.Context) bool {
	if s.live.State() == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	return s.db.Probe(ctx, false) == nil
}
