package platform

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/instances"
	"github.com/flagshipctf/flagship/internal/store"
)

// Shared instances (shared: true in a challenge's spec): one container for
// everyone, with the challenge's own flag. The reaper's replica keeps one
// running for each challenge players see — started when it appears (the
// event's start, its release), stopped when it goes (hidden, or its spec
// changed) — and the engine restarts its process whenever it ends. Players
// reach it by its connection line (Play.ConnectionInfo); nobody starts,
// extends or stops it but the organisers (Instances.StopByID: the reaper
// starts it again).

// sharedUntil is a shared instance's expiry: it has none.
const sharedUntil = 100 * 365 * 24 * time.Hour

// sharedConnection is the connection line of the running shared instance
// of the visible challenge of slug, "" when it has none.
func (s *Instances) sharedConnection(ctx context.Context, slug string) string {
	c, ok := s.live.State().VisibleChallenge(slug)
	if !ok || c.Instance == nil || !c.Instance.Shared {
		return ""
	}
	r, ok, err := s.db.Live(ctx, c.ID, "")
	if err != nil {
		s.log.Warn("read a shared instance", "challenge", slug, "err", err)
	}
	if !ok || r.Status != store.InstanceRunning {
		return ""
	}
	return c.Instance.Connection(s.view(&c, r).Host, r.Port)
}

// keepShared starts the shared instance of each challenge players see that
// has none running, and stops the shared instances of challenges they no
// longer see; live are the live instances. The reaper's replica runs it.
func (s *Instances) keepShared(ctx context.Context, live []store.InstanceRow) error {
	want := map[string]ctf.Challenge{}
	for _, c := range s.live.State().SharedInstances() {
		want[c.ID] = c
	}
	var errs []error
	have := map[string]bool{}
	for _, r := range live {
		if r.UserID != "" {
			continue
		}
		if _, ok := want[r.ChallengeID]; !ok {
			if err := s.stop(ctx, r); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		// A container that vanished (removed behind Flagship's back) is
		// recorded as stopped and started again below.
		if r.Status == store.InstanceRunning {
			if _, err := s.opts.Engine.Inspect(ctx, r.ID); errors.Is(err, instances.ErrNotFound) {
				s.log.Warn("a shared instance's container is gone; starting it again", "instance", r.ID)
				if err := s.db.Stopped(ctx, r.ID, s.now()); err != nil {
					errs = append(errs, err)
					continue
				}
				have[r.ChallengeID] = false
				continue
			}
		}
		have[r.ChallengeID] = true
	}
	for id, c := range want {
		if have[id] {
			continue
		}
		if err := s.startShared(ctx, c); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// startShared starts the shared instance of c.
func (s *Instances) startShared(ctx context.Context, c ctf.Challenge) error {
	spec := c.Instance.WithDefaults()
	var avoid []int
	for range portTries {
		now := s.now()
		r, existing, err := s.db.Reserve(ctx, store.InstanceRow{ID: ctf.NewID(), ChallengeID: c.ID, Engine: s.opts.EngineName,
			StartedAt: now, ExpiresAt: now.Add(sharedUntil), MaxUntil: now.Add(sharedUntil)},
			store.InstanceLimits{Max: s.opts.Max, From: s.opts.PortFrom, To: s.opts.PortTo, Avoid: avoid})
		if err != nil || existing {
			return err
		}
		_, err = s.launch(ctx, &c, spec, "", r)
		if errors.Is(err, instances.ErrPortTaken) {
			avoid = append(avoid, r.Port)
			continue
		}
		if err != nil {
			return err
		}
		s.log.Info("shared instance started", "challenge", c.Slug, "port", r.Port)
		return nil
	}
	return fmt.Errorf("start the shared instance of %s: %d ports taken: %w", c.Slug, portTries, instances.ErrPortTaken)
}
