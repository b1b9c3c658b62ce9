package platform

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/instances"
	"github.com/flagshipctf/flagship/internal/store"
)

// RunningInstance is a live instance as admins see it.
type RunningInstance struct {
	ID        string
	Challenge string // its slug
	Username  string // "" for a shared instance
	Status    string
	Engine    string
	EngineID  string
	Host      string
	Port      int
	StartedAt time.Time
	ExpiresAt time.Time
}

// Running lists the live instances, oldest first (admins and the operator).
func (s *Instances) Running(ctx context.Context, v ctf.Viewer) ([]RunningInstance, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	rows, err := s.db.AllLive(ctx, time.Time{})
	if err != nil {
		return nil, err
	}
	st := s.live.State()
	out := make([]RunningInstance, 0, len(rows))
	for _, r := range rows {
		ri := RunningInstance{ID: r.ID, Status: r.Status, Engine: r.Engine, EngineID: r.EngineID, Host: r.Host, Port: r.Port,
			StartedAt: r.StartedAt, ExpiresAt: r.ExpiresAt}
		if c, ok := st.ChallengeByID(r.ChallengeID); ok {
			ri.Challenge = c.Slug
		}
		if u, ok := st.Accounts().User(r.UserID); ok {
			ri.Username = u.Username
		}
		out = append(out, ri)
	}
	return out, nil
}

// StopByID stops a live instance by its id (admins and the operator),
// audited; an unknown or stopped one is NotFound.
func (s *Instances) StopByID(ctx context.Context, v ctf.Viewer, id string) error {
	if !v.IsAdmin() {
		return ctf.ErrNotAdmin
	}
	r, ok, err := s.db.ByID(ctx, id)
	switch {
	case err != nil:
		return err
	case !ok || r.StoppedAt != nil:
		return ctf.Errorf(ctf.NotFound, "no instance %q runs", id)
	}
	if err := s.stop(ctx, r); err != nil {
		return err
	}
	detail := map[string]any{"port": r.Port}
	if u, ok := s.live.State().Accounts().User(r.UserID); ok {
		detail["user"] = u.Username
	}
	if c, ok := s.live.State().ChallengeByID(r.ChallengeID); ok {
		detail["challenge"] = c.Slug
	}
	return s.db.AddAudit(ctx, *s.audit(v, "instance.stop", r.ID, detail))
}

// SharingView is a suspected sharing of a per-player flag, as admins see it.
type SharingView struct {
	At        time.Time
	Challenge string // slug
	Username  string // who submitted the flag
	Owner     string // whose flag it is
	Door      ctf.Door
}

// Sharing lists the suspected sharings, newest first, at most limit
// (admins and the operator).
func (s *Instances) Sharing(ctx context.Context, v ctf.Viewer, limit int) ([]SharingView, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	rows, err := s.db.SharingLog(ctx, limit)
	if err != nil {
		return nil, err
	}
	st := s.live.State()
	name := func(id string) string {
		if u, ok := st.Accounts().User(id); ok {
			return u.Username
		}
		return id
	}
	out := make([]SharingView, 0, len(rows))
	for _, r := range rows {
		sv := SharingView{At: r.At, Username: name(r.UserID), Owner: name(r.OwnerID), Door: r.Door, Challenge: r.ChallengeID}
		if c, ok := st.ChallengeByID(r.ChallengeID); ok {
			sv.Challenge = c.Slug
		}
		out = append(out, sv)
	}
	return out, nil
}

// reapLease is how long the reaper's lease lasts; the holder renews it
// every round, and another replica takes it once it runs out.
const reapLease = 30 * time.Second

// reapEvery spaces the reaper's rounds: the watcher runs ten times a
// second, and an expiry a second or two late is no matter.
const reapEvery = 2 * time.Second

// startingTimeout is how long a reservation may stay starting before the
// reaper takes it for the leftover of a replica that died mid-start.
const startingTimeout = 5 * time.Minute

// holder names this process in the leases.
var holder = func() string {
	h, _ := os.Hostname()
	return h + "-" + ctf.NewID()
}()

// reap stops the expired instances and the reservations left starting by
// a replica that died, on the one replica that holds the lease.
func (s *Instances) reap(ctx context.Context) error {
	if s.opts.Engine == nil {
		return nil
	}
	now := s.now()
	if now.Sub(s.lastReap) < reapEvery {
		return nil
	}
	s.lastReap = now
	if ok, err := s.db.TakeLease(ctx, "instances.reaper", holder, now, now.Add(reapLease)); err != nil || !ok {
		return err
	}
	rows, err := s.db.AllLive(ctx, time.Time{})
	if err != nil {
		return err
	}
	s.obs.InstancesRunning(len(rows))
	var errs []error
	var live []store.InstanceRow
	for _, r := range rows {
		expired := !r.ExpiresAt.After(now)
		stuck := r.Status == store.InstanceStarting && now.Sub(r.StartedAt) > startingTimeout
		if expired || stuck || r.Status == store.InstanceStopping {
			if err := s.stop(ctx, r); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		live = append(live, r)
	}
	errs = append(errs, s.keepShared(ctx, live))
	return errors.Join(errs...)
}

// Reconcile makes the engine and the database agree, at a replica's start:
// a container the database has no live instance for is removed (an
// orphan of a replica that died mid-start or mid-stop), and a live
// instance whose container is gone is recorded as stopped.
func (s *Instances) Reconcile(ctx context.Context) error {
	if s.opts.Engine == nil {
		return nil
	}
	running, err := s.opts.Engine.List(ctx)
	if err != nil {
		if errors.Is(err, instances.ErrUnavailable) {
			return errEngineDown
		}
		return err
	}
	rows, err := s.db.AllLive(ctx, time.Time{})
	if err != nil {
		return err
	}
	live := map[string]store.InstanceRow{}
	for _, r := range rows {
		live[r.ID] = r
	}
	onEngine := map[string]bool{}
	var errs []error
	for _, inst := range running {
		onEngine[inst.ID] = true
		if _, ok := live[inst.ID]; !ok {
			s.log.Info("remove an instance the database does not know", "instance", inst.ID, "engine_id", inst.EngineID)
			if err := s.opts.Engine.Stop(ctx, inst.ID); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for id, r := range live {
		// A reservation still starting may be another replica's start in
		// progress: the reaper takes it if it stays so.
		if !onEngine[id] && r.Status != store.InstanceStarting {
			s.log.Info("an instance's container is gone", "instance", id)
			if err := s.db.Stopped(ctx, id, s.now()); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
