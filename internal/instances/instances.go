// Package instances runs challenge containers on a real container engine:
// one container (Docker) or one service (Docker Swarm) per instance, each
// with the platform's labels, its resource limits, its capabilities dropped
// and its port published on the host port the caller chose.
//
// It is the lowest layer of per-player instances: it knows the engine and
// nothing of players, flags or the database. Both engines speak the Docker
// Engine API through the official client, found from the environment as the
// docker command finds it (DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH),
// and negotiate the API version down to the engine's (Debian's engine 20.10
// speaks 1.41).
//
// Every instance carries the labels flagship.managed=1 and
// flagship.instance=<id>, so that List finds what the platform made and a
// restarted platform can reconcile its rows with the engine.
package instances

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// Errors the callers map to their answers.
var (
	// ErrUnavailable: the engine cannot be reached (or is not one this
	// package can drive); the use cases answer 503.
	ErrUnavailable = errors.New("container engine unavailable")
	// ErrNotFound: no instance has this id on the engine.
	ErrNotFound = errors.New("instance not found")
	// ErrPortTaken: the host port is in use; the caller may try another.
	ErrPortTaken = errors.New("host port already in use")
	// ErrExists: an instance with this id exists already (another replica
	// may have started it at the same time).
	ErrExists = errors.New("instance already exists")
)

// The labels every container and service this package makes carries.
const (
	LabelManaged  = "flagship.managed"
	LabelInstance = "flagship.instance"
	// LabelHostPort keeps the published port where List can read it even
	// of a stopped container, whose port bindings the engine no longer
	// reports.
	LabelHostPort = "flagship.host-port"
)

// The states of an instance.
const (
	StateStarting = "starting" // created, not yet running
	StateRunning  = "running"
	StateExited   = "exited" // its process ended (ExitCode, OOMKilled say how)
	StateGone     = "gone"   // being removed
)

// Spec is what to run.
type Spec struct {
	// ID names the instance: its label, and the container's or service's
	// name (flagship-<ID>), so the engine refuses a second instance with
	// the same id.
	ID       string
	Image    string // present on the engine: nothing is pulled
	Port     int    // the container's TCP port
	HostPort int    // the host port to publish it on, chosen by the caller
	Env      map[string]string
	Memory   int64 // bytes; 0: no limit
	NanoCPUs int64 // 1e9 is one CPU; 0: no limit
	Pids     int64 // 0: no limit
	// Restart restarts the instance whenever its process ends (a shared
	// instance); otherwise an instance that exits stays exited.
	Restart bool
	Labels  map[string]string // the caller's own; the package's win
}

// Instance is what the engine says of one instance.
type Instance struct {
	ID       string // the instance id (Spec.ID)
	EngineID string // the container's or the service's id
	HostPort int
	State    string // StateStarting, StateRunning, StateExited or StateGone
	// Node is the host name of the swarm node that runs the task, the host
	// players connect to; empty on Docker, whose instances all run on the
	// engine's host.
	Node      string
	ExitCode  int  // when exited
	OOMKilled bool // when exited: the memory limit killed it
}

// Engine runs instances. Every method takes the engine's errors and wraps
// them: ErrUnavailable when the engine cannot be reached, whatever the
// operation.
type Engine interface {
	// Start creates and starts an instance, and returns once it runs (or
	// fails). On any failure it removes what it created: nothing is left
	// half made.
	Start(ctx context.Context, spec Spec) (Instance, error)
	// Inspect reports the instance with this id, or ErrNotFound.
	Inspect(ctx context.Context, id string) (Instance, error)
	// Stop removes the instance and what it holds; stopping an instance
	// that is not there is not an error.
	Stop(ctx context.Context, id string) error
	// List reports every instance on the engine that carries the platform's
	// label, in no particular order.
	List(ctx context.Context) ([]Instance, error)
	// Ping checks that the engine answers.
	Ping(ctx context.Context) error
	// Close releases the client's connections.
	Close() error
}

// Options configure an engine.
type Options struct {
	// Host is the engine's address (unix:///var/run/docker.sock,
	// tcp://host:2376); empty: from the environment, as docker does.
	Host string
	// Network is the name of the platform's network the instances join,
	// created on first use when absent. Default "flagship-instances" on
	// Docker, "flagship-instances-swarm" on Swarm.
	Network string
	// HostIP is the address the ports are published on (Docker only: a
	// swarm publishes host-mode ports on every address of the node).
	// Default 0.0.0.0.
	HostIP netip.Addr
	// ReadonlyRootfs mounts the image's file system read-only.
	ReadonlyRootfs bool
}

// The default network names: different on the two engines, since a local and
// a swarm network of one name would make the name ambiguous on a node.
const (
	defaultDockerNetwork = "flagship-instances"
	defaultSwarmNetwork  = "flagship-instances-swarm"
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,53}$`)

// name is the container's or service's name for an instance id.
func name(id string) string { return "flagship-" + id }

func (s Spec) validate() error {
	switch {
	case !idPattern.MatchString(s.ID):
		return fmt.Errorf("instances: id %q: want 1 to 54 letters, digits, '_', '.' or '-'", s.ID)
	case s.Image == "":
		return errors.New("instances: no image")
	case s.Port < 1 || s.Port > 65535:
		return fmt.Errorf("instances: container port %d out of range", s.Port)
	case s.HostPort < 1 || s.HostPort > 65535:
		return fmt.Errorf("instances: host port %d out of range", s.HostPort)
	case s.Memory < 0 || s.NanoCPUs < 0 || s.Pids < 0:
		return errors.New("instances: negative limit")
	}
	for k := range s.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("instances: environment variable name %q", k)
		}
	}
	return nil
}

// labels are the caller's labels with the package's over them.
func (s Spec) labels() map[string]string {
	l := make(map[string]string, len(s.Labels)+3)
	for k, v := range s.Labels {
		l[k] = v
	}
	l[LabelManaged] = "1"
	l[LabelInstance] = s.ID
	l[LabelHostPort] = strconv.Itoa(s.HostPort)
	return l
}

// env is the environment in the engine's KEY=value form, in a stable order.
func (s Spec) env() []string {
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + s.Env[k]
	}
	return out
}

// conn is what both engines share: the client, its API-version
// negotiation and what the engine must offer.
type conn struct {
	cli *client.Client
	// need checks the engine once the version is negotiated: nil or an
	// error that says what is missing.
	need func(ctx context.Context, cli *client.Client, ping client.PingResult) error

	mu sync.Mutex // held while negotiating
	ok bool       // negotiated and needs met, under mu
}

func newConn(host string, need func(context.Context, *client.Client, client.PingResult) error) (*conn, error) {
	opts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation()}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("instances: engine client: %w", err)
	}
	if need == nil {
		need = func(context.Context, *client.Client, client.PingResult) error { return nil }
	}
	return &conn{cli: cli, need: need}, nil
}

// ready negotiates the API version once. The client would negotiate by
// itself on its first request, but it ignores a failure there and sends
// that request at its own newest version, which an older engine refuses
// with a confusing error; negotiating first turns an unreachable engine
// into ErrUnavailable before anything is sent.
func (c *conn) ready(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok {
		return nil
	}
	ping, err := c.cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true})
	if err != nil {
		return wrap("ping", err)
	}
	if err := c.need(ctx, c.cli, ping); err != nil {
		return err
	}
	c.ok = true
	return nil
}

// Ping implements Engine.Ping for both engines: the engine answers, and
// still offers what the engine needs (a node may leave its swarm).
func (c *conn) Ping(ctx context.Context) error {
	if err := c.ready(ctx); err != nil {
		return err
	}
	ping, err := c.cli.Ping(ctx, client.PingOptions{})
	if err != nil {
		return wrap("ping", err)
	}
	return c.need(ctx, c.cli, ping)
}

func (c *conn) Close() error { return c.cli.Close() }

// starter is what Start does on an engine, step by step.
type starter interface {
	ready(ctx context.Context) error
	// makeNetwork finds or makes the platform network, and returns its id.
	makeNetwork(ctx context.Context) (string, error)
	// create creates the instance on the network; it returns the engine's
	// id for it.
	create(ctx context.Context, spec Spec, netID string) (string, error)
	// run starts what create made, and reports it once it runs.
	run(ctx context.Context, engineID, id string) (Instance, error)
	Stop(ctx context.Context, id string) error
}

// startInstance is Start on either engine: the network, the instance on
// it, and on any failure after its creation, its removal.
func startInstance(ctx context.Context, e starter, nets *netCache, spec Spec) (Instance, error) {
	if err := spec.validate(); err != nil {
		return Instance{}, err
	}
	if err := e.ready(ctx); err != nil {
		return Instance{}, err
	}
	netID, err := nets.get(ctx, e.makeNetwork)
	if err != nil {
		return Instance{}, err
	}
	engineID, err := e.create(ctx, spec, netID)
	if cerrdefs.IsNotFound(err) && strings.Contains(err.Error(), "network") {
		// Someone removed the network since it was made: make it again.
		nets.forget(netID)
		if netID, err = nets.get(ctx, e.makeNetwork); err != nil {
			return Instance{}, err
		}
		engineID, err = e.create(ctx, spec, netID)
	}
	if err != nil {
		if cerrdefs.IsConflict(err) {
			return Instance{}, fmt.Errorf("instances: create %s: %w: %w", spec.ID, ErrExists, err)
		}
		return Instance{}, wrap("create "+spec.ID, err)
	}
	inst, err := e.run(ctx, engineID, spec.ID)
	if err != nil {
		cctx, cancel := cleanupContext(ctx)
		defer cancel()
		if rmErr := e.Stop(cctx, spec.ID); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("removing after a failed start: %w", rmErr))
		}
		return Instance{}, err
	}
	return inst, nil
}

// netCache remembers the platform network's id once found or made.
type netCache struct {
	mu sync.Mutex
	id string
}

func (n *netCache) get(ctx context.Context, mk func(context.Context) (string, error)) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.id == "" {
		id, err := mk(ctx)
		if err != nil {
			return "", err
		}
		n.id = id
	}
	return n.id, nil
}

func (n *netCache) forget(id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.id == id {
		n.id = ""
	}
}

// wrap adds the operation to an engine error and marks the ones callers
// act on.
func wrap(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case client.IsErrConnectionFailed(err):
		return fmt.Errorf("instances: %s: %w: %w", op, ErrUnavailable, err)
	case portTaken(err.Error()):
		return fmt.Errorf("instances: %s: %w: %w", op, ErrPortTaken, err)
	}
	return fmt.Errorf("instances: %s: %w", op, err)
}

// portTaken tells an engine's message about a host port in use: Docker's
// "port is already allocated" or the kernel's "address already in use"
// when something else than Docker holds it, and a swarm scheduler's
// "host-mode port already in use".
func portTaken(msg string) bool {
	return strings.Contains(msg, "port is already allocated") ||
		strings.Contains(msg, "address already in use") ||
		strings.Contains(msg, "host-mode port already in use")
}

// cleanupContext is for removing what a failed Start made: the caller's
// context may be the reason it failed, and the removal must still happen.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
}

// managedFilter selects what the platform made, or one instance of it.
func managedFilter(id string) client.Filters {
	f := make(client.Filters).Add("label", LabelManaged+"=1")
	if id != "" {
		f.Add("label", LabelInstance+"="+id)
	}
	return f
}

// hostPortLabel reads LabelHostPort, 0 when absent.
func hostPortLabel(labels map[string]string) int {
	p, _ := strconv.Atoi(labels[LabelHostPort])
	return p
}
