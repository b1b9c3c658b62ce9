package instances

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

// iccOption turns inter-container traffic off on a bridge network: an
// instance cannot reach another one's container, only the ports published
// on the host, as players do.
const iccOption = "com.docker.network.bridge.enable_icc"

// docker runs each instance as one container on one engine.
type docker struct {
	*conn
	opts Options
	net  netCache
}

// NewDocker returns an engine that runs each instance as a container on
// the Docker engine of opts.Host (or of the environment). It does not reach
// the engine until used.
func NewDocker(opts Options) (Engine, error) {
	if opts.Network == "" {
		opts.Network = defaultDockerNetwork
	}
	if !opts.HostIP.IsValid() {
		opts.HostIP = netip.IPv4Unspecified()
	}
	c, err := newConn(opts.Host, nil)
	if err != nil {
		return nil, err
	}
	return &docker{conn: c, opts: opts}, nil
}

func (d *docker) Start(ctx context.Context, spec Spec) (Instance, error) {
	return startInstance(ctx, d, &d.net, spec)
}

// create creates the instance's container, not started.
func (d *docker) create(ctx context.Context, spec Spec, netID string) (string, error) {
	port, ok := network.PortFrom(uint16(spec.Port), network.TCP)
	if !ok {
		return "", fmt.Errorf("instances: container port %d", spec.Port)
	}
	restart := container.RestartPolicy{Name: container.RestartPolicyDisabled}
	if spec.Restart {
		restart.Name = container.RestartPolicyUnlessStopped
	}
	res := container.Resources{Memory: spec.Memory, NanoCPUs: spec.NanoCPUs}
	if spec.Memory > 0 {
		// Memory and swap together: the limit is not doubled by swap on a
		// host that has some.
		res.MemorySwap = spec.Memory
	}
	if spec.Pids > 0 {
		res.PidsLimit = &spec.Pids
	}
	created, err := d.cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name: name(spec.ID),
		Config: &container.Config{
			Image:        spec.Image,
			Env:          spec.env(),
			Labels:       spec.labels(),
			ExposedPorts: network.PortSet{port: {}},
		},
		HostConfig: &container.HostConfig{
			NetworkMode: container.NetworkMode(netID),
			PortBindings: network.PortMap{port: {{
				HostIP:   d.opts.HostIP,
				HostPort: strconv.Itoa(spec.HostPort),
			}}},
			RestartPolicy:  restart,
			CapDrop:        []string{"ALL"},
			SecurityOpt:    []string{"no-new-privileges"},
			ReadonlyRootfs: d.opts.ReadonlyRootfs,
			Resources:      res,
		},
	})
	return created.ID, err
}

// run starts the created container and reports it.
func (d *docker) run(ctx context.Context, engineID, id string) (Instance, error) {
	if _, err := d.cli.ContainerStart(ctx, engineID, client.ContainerStartOptions{}); err != nil {
		return Instance{}, wrap("start "+id, err)
	}
	return d.inspect(ctx, engineID, id)
}

func (d *docker) Inspect(ctx context.Context, id string) (Instance, error) {
	if err := d.ready(ctx); err != nil {
		return Instance{}, err
	}
	return d.inspect(ctx, name(id), id)
}

// inspect reports the container ref (its id or name) as instance id.
func (d *docker) inspect(ctx context.Context, ref, id string) (Instance, error) {
	res, err := d.cli.ContainerInspect(ctx, ref, client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return Instance{}, fmt.Errorf("instances: inspect %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Instance{}, wrap("inspect "+id, err)
	}
	c := res.Container
	if c.Config == nil || c.Config.Labels[LabelManaged] != "1" || c.Config.Labels[LabelInstance] != id {
		return Instance{}, fmt.Errorf("instances: inspect %s: %w (a container of that name is not the platform's)", id, ErrNotFound)
	}
	inst := Instance{ID: id, EngineID: c.ID, HostPort: hostPortLabel(c.Config.Labels), State: StateStarting}
	if c.State != nil {
		inst.State = containerState(c.State.Status)
		inst.ExitCode = c.State.ExitCode
		inst.OOMKilled = c.State.OOMKilled
	}
	return inst, nil
}

// containerState is a container's state as an instance's.
func containerState(s container.ContainerState) string {
	switch s {
	case container.StateRunning, container.StatePaused:
		return StateRunning
	case container.StateExited, container.StateDead:
		return StateExited
	case container.StateRemoving:
		return StateGone
	}
	return StateStarting // created, restarting
}

func (d *docker) Stop(ctx context.Context, id string) error {
	if err := d.ready(ctx); err != nil {
		return err
	}
	_, err := d.cli.ContainerRemove(ctx, name(id), client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	switch {
	case err == nil, cerrdefs.IsNotFound(err):
		return nil
	case cerrdefs.IsConflict(err) && strings.Contains(err.Error(), "already in progress"):
		return nil // another Stop is removing it
	}
	return wrap("stop "+id, err)
}

func (d *docker) List(ctx context.Context) ([]Instance, error) {
	if err := d.ready(ctx); err != nil {
		return nil, err
	}
	res, err := d.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: managedFilter("")})
	if err != nil {
		return nil, wrap("list", err)
	}
	out := make([]Instance, 0, len(res.Items))
	for _, c := range res.Items {
		out = append(out, Instance{
			ID:       c.Labels[LabelInstance],
			EngineID: c.ID,
			HostPort: hostPortLabel(c.Labels),
			State:    containerState(c.State),
		})
	}
	return out, nil
}

// makeNetwork finds or makes the platform network.
func (d *docker) makeNetwork(ctx context.Context) (string, error) {
	return ensureNetwork(ctx, d.cli, d.opts.Network, client.NetworkCreateOptions{
		Driver:  "bridge",
		Options: map[string]string{iccOption: "false"},
		Labels:  map[string]string{LabelManaged: "1"},
	})
}

// ensureNetwork returns the id of the network of this name, creating it
// with opts when there is none. An existing network must have
// inter-container traffic off as opts asks, or the isolation would be lost
// without a word.
//
// Engines before API 1.44 do not refuse a second network of a name, so two
// platform replicas starting at once may each create one; every replica
// then uses the one of the smallest id, and the other stays empty.
func ensureNetwork(ctx context.Context, cli *client.Client, netName string, opts client.NetworkCreateOptions) (string, error) {
	nets, err := networksNamed(ctx, cli, netName)
	if err != nil {
		return "", err
	}
	if len(nets) == 0 {
		if _, err := cli.NetworkCreate(ctx, netName, opts); err != nil && !cerrdefs.IsConflict(err) {
			return "", wrap("create network "+netName, err)
		}
		if nets, err = networksNamed(ctx, cli, netName); err != nil {
			return "", err
		}
		if len(nets) == 0 {
			return "", fmt.Errorf("instances: network %s: created, then not found", netName)
		}
	}
	n := nets[0]
	if want, ok := opts.Options[iccOption]; ok && n.Options[iccOption] != want {
		return "", fmt.Errorf("instances: network %s exists with %s=%q, want %q: remove it or name another network", netName, iccOption, n.Options[iccOption], want)
	}
	if opts.ConfigFrom != "" && n.ConfigFrom.Network != opts.ConfigFrom {
		return "", fmt.Errorf("instances: network %s exists, not configured from %s: remove it or name another network", netName, opts.ConfigFrom)
	}
	return n.ID, nil
}

// networksNamed lists the networks of exactly this name (the engine's name
// filter matches parts of names), smallest id first.
func networksNamed(ctx context.Context, cli *client.Client, netName string) ([]network.Summary, error) {
	res, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: make(client.Filters).Add("name", netName)})
	if err != nil {
		return nil, wrap("list networks", err)
	}
	nets := slices.DeleteFunc(res.Items, func(n network.Summary) bool { return n.Name != netName })
	slices.SortFunc(nets, func(a, b network.Summary) int { return strings.Compare(a.ID, b.ID) })
	return nets, nil
}
