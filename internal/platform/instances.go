package platform

import (
	"context"
	"errors"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/instances"
	"github.com/flagshipctf/flagship/internal/store"
)

// Players' instances (docs/product.md#instances): a player starts their own
// container of a challenge's image, reaches it on a port of the event's
// range, extends it up to its maximum lifetime and stops it, or it stops by
// itself. The database holds every instance, so any replica starts, extends
// or stops any; one replica at a time (a lease) reaps the expired ones.
// Instances are read from the database, not the hot state: a player's own
// instance is read on few pages, and every replica must agree on it.

// instanceStore is what Instances needs of the database.
type instanceStore interface {
	Reserve(ctx context.Context, r store.InstanceRow, lim store.InstanceLimits) (store.InstanceRow, bool, error)
	Started(ctx context.Context, id, engineID, host string) error
	Extend(ctx context.Context, id string, expires time.Time) error
	Stopping(ctx context.Context, id string) error
	Stopped(ctx context.Context, id string, at time.Time) error
	Live(ctx context.Context, challengeID, userID string) (store.InstanceRow, bool, error)
	ByID(ctx context.Context, id string) (store.InstanceRow, bool, error)
	AllLive(ctx context.Context, expiredBy time.Time) ([]store.InstanceRow, error)
	TakeLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error)
	IssueFlag(ctx context.Context, challengeID, userID, flag string, at time.Time) error
	SharingLog(ctx context.Context, limit int) ([]store.Sharing, error)
	AddAudit(ctx context.Context, a ctf.AuditEntry) error
}

// InstanceOptions configure the instances of a Service.
type InstanceOptions struct {
	// Engine runs them; nil: this server runs none (serve --instances off).
	Engine instances.Engine
	// EngineName is docker or swarm, recorded with each instance.
	EngineName string
	// Host is the host name players connect to (serve --instance-host); on
	// a swarm, the node that runs an instance, when the engine names it.
	Host string
	// PortFrom and PortTo bound the ports instances are published on.
	PortFrom, PortTo int
	// PerPlayer and Max bound the live instances of a player and of the
	// event (0: no bound).
	PerPlayer, Max int
}

// The defaults of the instance options.
const (
	DefaultInstancePortFrom   = 30000
	DefaultInstancePortTo     = 31000
	DefaultInstancesPerPlayer = 3
	DefaultInstancesMax       = 200
)

// instanceDefaults is o with the defaults of what it leaves out.
func instanceDefaults(o InstanceOptions) InstanceOptions {
	if o.PortFrom == 0 && o.PortTo == 0 {
		o.PortFrom, o.PortTo = DefaultInstancePortFrom, DefaultInstancePortTo
	}
	return o
}

// InstanceView is a player's instance as they see it.
type InstanceView struct {
	Status     string // starting, running or stopping
	Host       string
	Port       int
	Connection string // nc HOST PORT, or http://HOST:PORT/
	StartedAt  time.Time
	ExpiresAt  time.Time
	// MaxUntil is the latest an extension may reach.
	MaxUntil time.Time
}

// errInstancesOff answers when this server runs no instances.
var errInstancesOff = func() *ctf.Error {
	e := ctf.Errorf(ctf.Unavailable, "this server runs no instances; ask the organisers")
	e.RetryAfter = time.Minute
	return e
}()

// errEngineDown answers when the engine cannot be reached.
var errEngineDown = func() *ctf.Error {
	e := ctf.Errorf(ctf.Unavailable, "the instances' engine does not answer; try again in a minute")
	e.RetryAfter = time.Minute
	return e
}()

// instanceChallenge returns the challenge of slug with its instance spec,
// for v to start, extend or stop an instance of: the order of refusals of
// a submission (docs/product.md#submitting-a-flag), then a challenge
// without instances is NotFound.
func (s *Instances) instanceChallenge(v ctf.Viewer, slug string, write bool) (ctf.Challenge, error) {
	if v.User == nil {
		return ctf.Challenge{}, ctf.ErrAuthRequired
	}
	a := s.live.Attempt(slug, v)
	switch {
	case !a.Open:
		return ctf.Challenge{}, ctf.ErrNoChallenge
	case !a.Known:
		return ctf.Challenge{}, ctf.ErrAuthRequired
	case a.Challenge.Instance == nil || a.Challenge.Instance.Shared:
		return ctf.Challenge{}, ctf.Errorf(ctf.NotFound, "this challenge has no instances of its own")
	case !write:
		return a.Challenge, nil
	case a.Banned:
		return ctf.Challenge{}, ErrBanned
	case v.ReadOnly:
		return ctf.Challenge{}, ctf.Errorf(ctf.Forbidden, "this API key is read-only: it cannot start or stop instances")
	case a.Over && !a.Practice:
		return ctf.Challenge{}, ErrEventOver
	case a.Locked:
		return ctf.Challenge{}, ErrLocked
	}
	return a.Challenge, nil
}

// view is row as its player sees it.
func (s *Instances) view(c *ctf.Challenge, r store.InstanceRow) InstanceView {
	host := r.Host
	if host == "" {
		host = s.host("")
	}
	return InstanceView{Status: r.Status, Host: host, Port: r.Port, Connection: c.Instance.Connection(host, r.Port),
		StartedAt: r.StartedAt, ExpiresAt: r.ExpiresAt, MaxUntil: r.MaxUntil}
}

// host is the host players connect to: the swarm node that runs an
// instance, else the configured host.
func (s *Instances) host(node string) string {
	switch {
	case node != "":
		return node
	case s.opts.Host != "":
		return s.opts.Host
	}
	return "localhost"
}

// Get returns v's instance of the challenge of slug, nil when none runs.
func (s *Instances) Get(ctx context.Context, v ctf.Viewer, slug string) (*InstanceView, error) {
	c, err := s.instanceChallenge(v, slug, false)
	if err != nil {
		return nil, err
	}
	r, ok, err := s.db.Live(ctx, c.ID, v.User.ID)
	if err != nil || !ok {
		return nil, err
	}
	view := s.view(&c, r)
	return &view, nil
}

// Start starts v's instance of the challenge of slug, or returns the one
// that runs (created false). A player runs at most PerPlayer instances at
// once (Conflict), the event at most Max (Unavailable, as when the engine
// does not answer: nothing is left half made).
func (s *Instances) Start(ctx context.Context, v ctf.Viewer, slug string) (view InstanceView, created bool, err error) {
	c, err := s.instanceChallenge(v, slug, true)
	if err != nil {
		return InstanceView{}, false, err
	}
	if s.opts.Engine == nil {
		return InstanceView{}, false, errInstancesOff
	}
	spec := c.Instance.WithDefaults()
	var r store.InstanceRow
	var inst instances.Instance
	var avoid []int
	for range portTries {
		now := s.now()
		var existing bool
		r, existing, err = s.db.Reserve(ctx, store.InstanceRow{ID: ctf.NewID(), ChallengeID: c.ID, UserID: v.User.ID,
			Engine: s.opts.EngineName, StartedAt: now, ExpiresAt: now.Add(spec.Lifetime), MaxUntil: now.Add(spec.MaxLifetime)},
			store.InstanceLimits{PerPlayer: s.opts.PerPlayer, Max: s.opts.Max, From: s.opts.PortFrom, To: s.opts.PortTo, Avoid: avoid})
		if err != nil {
			return InstanceView{}, false, err
		}
		if existing {
			return s.view(&c, r), false, nil
		}
		if inst, err = s.launch(ctx, &c, spec, v.User.ID, r); !errors.Is(err, instances.ErrPortTaken) {
			break
		}
		avoid = append(avoid, r.Port)
	}
	if err != nil {
		if errors.Is(err, instances.ErrUnavailable) || errors.Is(err, instances.ErrPortTaken) {
			return InstanceView{}, false, errEngineDown
		}
		var ce *ctf.Error
		if errors.As(err, &ce) {
			return InstanceView{}, false, err
		}
		s.log.Error("start an instance", "challenge", c.Slug, "user", v.User.ID, "err", err)
		return InstanceView{}, false, ctf.Errorf(ctf.Unavailable, "the instance could not be started; the organisers are told")
	}
	r.Status, r.Host, r.EngineID = store.InstanceRunning, s.host(inst.Node), inst.EngineID
	return s.view(&c, r), true, nil
}

// portTries is how many ports a start tries when the engine says the one
// reserved is taken (by a process outside Flagship, or by a container
// just removed whose port the engine has not released yet).
const portTries = 3

// launch runs reservation r and tells the observer how it went; on a
// failure it gives the reservation back: nothing runs, the port is free.
func (s *Instances) launch(ctx context.Context, c *ctf.Challenge, spec ctf.InstanceSpec, userID string, r store.InstanceRow) (instances.Instance, error) {
	start := time.Now()
	inst, err := s.run(ctx, c, spec, userID, r)
	s.obs.InstanceStarted(err == nil, time.Since(start))
	if err != nil {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		s.opts.Engine.Stop(stopCtx, r.ID)
		if serr := s.db.Stopped(stopCtx, r.ID, s.now()); serr != nil {
			s.log.Warn("free the reservation of an instance that did not start", "instance", r.ID, "err", serr)
		}
	}
	return inst, err
}

// run starts the container of reservation r and records where it runs.
func (s *Instances) run(ctx context.Context, c *ctf.Challenge, spec ctf.InstanceSpec, userID string, r store.InstanceRow) (instances.Instance, error) {
	env := map[string]string{}
	for k, val := range spec.Env {
		env[k] = val
	}
	switch {
	case spec.Flag == ctf.FlagPerPlayer:
		key, err := s.flagKey(ctx)
		if err != nil {
			return instances.Instance{}, err
		}
		flag := ctf.PlayerFlag(key, userID, c)
		if err := s.db.IssueFlag(ctx, c.ID, userID, flag, s.now()); err != nil {
			return instances.Instance{}, err
		}
		env[spec.FlagEnv] = flag
	default:
		for _, f := range c.Flags {
			if f.Kind == ctf.FlagStatic {
				env[spec.FlagEnv] = f.Content
				break
			}
		}
	}
	labels := map[string]string{"flagship.challenge": c.Slug}
	if userID != "" {
		labels["flagship.user"] = userID
	}
	inst, err := s.opts.Engine.Start(ctx, instances.Spec{ID: r.ID, Image: spec.Image, Port: spec.Port, HostPort: r.Port, Env: env,
		Memory: spec.Memory, NanoCPUs: int64(spec.CPUs * 1e9), Pids: spec.Pids, Restart: spec.Shared, Labels: labels})
	if err != nil {
		return inst, err
	}
	return inst, s.db.Started(ctx, r.ID, inst.EngineID, s.host(inst.Node))
}

// Extend moves v's instance's expiry to a lifetime from now, at most its
// maximum; at the maximum already, Conflict.
func (s *Instances) Extend(ctx context.Context, v ctf.Viewer, slug string) (InstanceView, error) {
	c, err := s.instanceChallenge(v, slug, true)
	if err != nil {
		return InstanceView{}, err
	}
	r, ok, err := s.db.Live(ctx, c.ID, v.User.ID)
	switch {
	case err != nil:
		return InstanceView{}, err
	case !ok || r.Status == store.InstanceStopping:
		return InstanceView{}, ctf.Errorf(ctf.NotFound, "no instance of yours runs for this challenge")
	}
	next := s.now().Add(c.Instance.WithDefaults().Lifetime)
	if next.After(r.MaxUntil) {
		next = r.MaxUntil
	}
	if !next.After(r.ExpiresAt) {
		return InstanceView{}, ctf.Errorf(ctf.Conflict, "the instance runs as long as it may already")
	}
	if err := s.db.Extend(ctx, r.ID, next); err != nil {
		return InstanceView{}, err
	}
	r.ExpiresAt = next
	return s.view(&c, r), nil
}

// Stop stops v's instance of the challenge of slug; without one, NotFound.
func (s *Instances) Stop(ctx context.Context, v ctf.Viewer, slug string) error {
	c, err := s.instanceChallenge(v, slug, true)
	if err != nil {
		return err
	}
	r, ok, err := s.db.Live(ctx, c.ID, v.User.ID)
	switch {
	case err != nil:
		return err
	case !ok:
		return ctf.Errorf(ctf.NotFound, "no instance of yours runs for this challenge")
	}
	return s.stop(ctx, r)
}

// stop removes an instance from the engine, then frees its row: a row is
// freed only once its container is gone (else the reaper tries again).
func (s *Instances) stop(ctx context.Context, r store.InstanceRow) error {
	if s.opts.Engine == nil {
		return errInstancesOff
	}
	if err := s.db.Stopping(ctx, r.ID); err != nil {
		return err
	}
	if err := s.opts.Engine.Stop(ctx, r.ID); err != nil {
		if errors.Is(err, instances.ErrUnavailable) {
			return errEngineDown
		}
		return err
	}
	return s.db.Stopped(ctx, r.ID, s.now())
}
