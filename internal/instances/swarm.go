package instances

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/api/types/swarm"
	"github.com/moby/moby/client"
	"github.com/moby/moby/client/pkg/versions"
)

// swarmMinAPI is the first API version whose services take CapabilityDrop
// and a pids limit; an older engine would ignore both without a word.
const swarmMinAPI = "1.41"

// pollInterval is how often Start and Stop ask the swarm how far it got:
// the engine has no way to wait for a task's state.
const pollInterval = 50 * time.Millisecond

// swarmEngine runs each instance as a one-replica service on a Docker
// Swarm, its port published in host mode on the node that runs the task.
//
// Ingress (the routing mesh) is not used: it needs IPVS, which not every
// host has, and host mode keeps a player's port on the node that runs their
// container, which Instance.Node names.
//
// The instances join a swarm-scoped bridge network made from a config-only
// network that turns inter-container traffic off: an overlay network has no
// such switch, so instances on it could reach each other. The config-only
// network is local to each node: NewSwarm's engine makes it on the node it
// talks to, and on every other node the operator makes it once:
//
//	docker network create --config-only -o com.docker.network.bridge.enable_icc=false flagship-instances-swarm-config
//
// A service can ask for no new privileges only from API 1.46 (Docker 26);
// an older engine ignores the request without a word: its instances have
// every capability dropped, but a setuid program in the image can still
// change its user. On such nodes, start dockerd with --no-new-privileges
// (or "no-new-privileges": true in daemon.json), which sets it for every
// container of the node.
type swarmEngine struct {
	*conn
	opts Options
	net  netCache

	nodeMu sync.Mutex
	nodes  map[string]string // node id → host name
}

// NewSwarm returns an engine that runs each instance as a service on the
// swarm whose manager is opts.Host (or the environment's engine). The
// engine must be a swarm manager and speak API 1.41 or later.
func NewSwarm(opts Options) (Engine, error) {
	if opts.Network == "" {
		opts.Network = defaultSwarmNetwork
	}
	c, err := newConn(opts.Host, needSwarm)
	if err != nil {
		return nil, err
	}
	return &swarmEngine{conn: c, opts: opts, nodes: map[string]string{}}, nil
}

// needSwarm checks that the engine can run the services as asked. Engines
// before API 1.48 do not say in their ping whether they manage a swarm:
// their info does.
func needSwarm(ctx context.Context, cli *client.Client, ping client.PingResult) error {
	if v := cli.ClientVersion(); versions.LessThan(v, swarmMinAPI) {
		return fmt.Errorf("instances: %w: the engine speaks API %s; swarm instances need %s (capabilities dropped, pids limited)", ErrUnavailable, v, swarmMinAPI)
	}
	manager := ping.SwarmStatus != nil && ping.SwarmStatus.ControlAvailable
	if ping.SwarmStatus == nil {
		info, err := cli.Info(ctx, client.InfoOptions{})
		if err != nil {
			return wrap("info", err)
		}
		manager = info.Info.Swarm.ControlAvailable
	}
	if !manager {
		return fmt.Errorf("instances: %w: the engine is not a swarm manager", ErrUnavailable)
	}
	return nil
}

func (s *swarmEngine) Start(ctx context.Context, spec Spec) (Instance, error) {
	return startInstance(ctx, s, &s.net, spec)
}

// create creates the instance's service.
func (s *swarmEngine) create(ctx context.Context, spec Spec, netID string) (string, error) {
	created, err := s.cli.ServiceCreate(ctx, client.ServiceCreateOptions{Spec: s.serviceSpec(spec, netID)})
	return created.ID, err
}

func (s *swarmEngine) serviceSpec(spec Spec, netID string) swarm.ServiceSpec {
	labels := spec.labels()
	one := uint64(1)
	grace := time.Second // an instance has nothing to save: no need to wait
	restart := swarm.RestartPolicyConditionNone
	if spec.Restart {
		restart = swarm.RestartPolicyConditionAny
	}
	return swarm.ServiceSpec{
		Annotations: swarm.Annotations{Name: name(spec.ID), Labels: labels},
		TaskTemplate: swarm.TaskSpec{
			ContainerSpec: &swarm.ContainerSpec{
				Image:           spec.Image,
				Env:             spec.env(),
				Labels:          labels, // on the container too, for a node's own listing
				CapabilityDrop:  []string{"ALL"},
				ReadOnly:        s.opts.ReadonlyRootfs,
				StopGracePeriod: &grace,
				// From API 1.46 only: an older engine ignores it (see
				// swarmEngine).
				Privileges: &swarm.Privileges{NoNewPrivileges: true},
			},
			Resources: &swarm.ResourceRequirements{Limits: &swarm.Limit{
				NanoCPUs:    spec.NanoCPUs,
				MemoryBytes: spec.Memory,
				Pids:        spec.Pids,
			}},
			RestartPolicy: &swarm.RestartPolicy{Condition: restart},
			Networks:      []swarm.NetworkAttachmentConfig{{Target: netID}},
		},
		Mode: swarm.ServiceMode{Replicated: &swarm.ReplicatedService{Replicas: &one}},
		EndpointSpec: &swarm.EndpointSpec{
			// No virtual IP: it is balanced with IPVS, and one replica
			// needs no balancing.
			Mode: swarm.ResolutionModeDNSRR,
			Ports: []swarm.PortConfig{{
				Protocol:      network.TCP,
				TargetPort:    uint32(spec.Port),
				PublishedPort: uint32(spec.HostPort),
				PublishMode:   swarm.PortConfigPublishModeHost,
			}},
		},
	}
}

// run waits until the service's task runs, and fails as soon as it
// cannot: the task ended (a missing image is a rejected task: a swarm
// checks images on the node, not at creation) or no node has the host port
// free.
func (s *swarmEngine) run(ctx context.Context, serviceID, id string) (Instance, error) {
	for {
		tasks, err := s.cli.TaskList(ctx, client.TaskListOptions{Filters: make(client.Filters).Add("service", serviceID)})
		if err != nil {
			return Instance{}, wrap("start "+id, err)
		}
		if t, ok := newestTask(tasks.Items); ok {
			switch state := taskState(t); {
			case state == StateRunning:
				return s.instance(ctx, id, serviceID, 0, t, true)
			case state == StateExited || state == StateGone:
				return Instance{}, wrap("start "+id, fmt.Errorf("task %s: %s", t.Status.State, taskMessage(t)))
			case portTaken(t.Status.Err):
				return Instance{}, wrap("start "+id, errors.New(t.Status.Err))
			}
		}
		select {
		case <-ctx.Done():
			return Instance{}, fmt.Errorf("instances: start %s: waiting for the task to run: %w", id, ctx.Err())
		case <-time.After(pollInterval):
		}
	}
}

func taskMessage(t swarm.Task) string {
	if t.Status.Err != "" {
		return t.Status.Err
	}
	return t.Status.Message
}

func (s *swarmEngine) Inspect(ctx context.Context, id string) (Instance, error) {
	if err := s.ready(ctx); err != nil {
		return Instance{}, err
	}
	res, err := s.cli.ServiceInspect(ctx, name(id), client.ServiceInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return Instance{}, fmt.Errorf("instances: inspect %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Instance{}, wrap("inspect "+id, err)
	}
	svc := res.Service
	if svc.Spec.Labels[LabelManaged] != "1" || svc.Spec.Labels[LabelInstance] != id {
		return Instance{}, fmt.Errorf("instances: inspect %s: %w (a service of that name is not the platform's)", id, ErrNotFound)
	}
	tasks, err := s.cli.TaskList(ctx, client.TaskListOptions{Filters: make(client.Filters).Add("service", svc.ID)})
	if err != nil {
		return Instance{}, wrap("inspect "+id, err)
	}
	t, _ := newestTask(tasks.Items)
	return s.instance(ctx, id, svc.ID, hostPortLabel(svc.Spec.Labels), t, true)
}

// instance reports a service by its newest task (zero if none yet). With
// detail, it asks the engine which node runs the task and, when the task
// ended, whether the memory limit ended it: the task does not say, its
// container does, and that can be inspected from the node that runs it
// only.
func (s *swarmEngine) instance(ctx context.Context, id, serviceID string, hostPort int, t swarm.Task, detail bool) (Instance, error) {
	if hostPort == 0 && t.Spec.ContainerSpec != nil {
		hostPort = hostPortLabel(t.Spec.ContainerSpec.Labels)
	}
	inst := Instance{ID: id, EngineID: serviceID, HostPort: hostPort, State: StateStarting}
	if t.ID == "" {
		return inst, nil
	}
	inst.State = taskState(t)
	if cs := t.Status.ContainerStatus; cs != nil {
		inst.ExitCode = cs.ExitCode
		if detail && inst.State == StateExited && cs.ContainerID != "" {
			if c, err := s.cli.ContainerInspect(ctx, cs.ContainerID, client.ContainerInspectOptions{}); err == nil && c.Container.State != nil {
				inst.OOMKilled = c.Container.State.OOMKilled
			}
		}
	}
	if detail && t.NodeID != "" {
		node, err := s.nodeName(ctx, t.NodeID)
		if err != nil {
			return Instance{}, err
		}
		inst.Node = node
	}
	return inst, nil
}

// taskState is a task's state as an instance's.
func taskState(t swarm.Task) string {
	if t.DesiredState == swarm.TaskStateRemove {
		return StateGone
	}
	switch t.Status.State {
	case swarm.TaskStateRunning:
		return StateRunning
	case swarm.TaskStateComplete, swarm.TaskStateShutdown, swarm.TaskStateFailed,
		swarm.TaskStateRejected, swarm.TaskStateOrphaned:
		return StateExited
	case swarm.TaskStateRemove:
		return StateGone
	}
	return StateStarting // new to starting
}

// newestTask is the task a one-replica service runs now, or ran last.
func newestTask(tasks []swarm.Task) (swarm.Task, bool) {
	if len(tasks) == 0 {
		return swarm.Task{}, false
	}
	return slices.MaxFunc(tasks, func(a, b swarm.Task) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return int(a.Version.Index) - int(b.Version.Index)
	}), true
}

// nodeName is the host name of a node, asked once per node.
func (s *swarmEngine) nodeName(ctx context.Context, nodeID string) (string, error) {
	s.nodeMu.Lock()
	host, ok := s.nodes[nodeID]
	s.nodeMu.Unlock()
	if ok {
		return host, nil
	}
	res, err := s.cli.NodeInspect(ctx, nodeID, client.NodeInspectOptions{})
	if err != nil {
		return "", wrap("inspect node "+nodeID, err)
	}
	host = res.Node.Description.Hostname
	s.nodeMu.Lock()
	s.nodes[nodeID] = host
	s.nodeMu.Unlock()
	return host, nil
}

// Stop removes the service, then removes its container from the engine's
// own node rather than wait for the swarm to: the swarm's agent takes some
// five seconds to stop and remove it, and the host port is free only then.
// A container on another node is removed by that node's agent.
func (s *swarmEngine) Stop(ctx context.Context, id string) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	res, err := s.cli.ServiceInspect(ctx, name(id), client.ServiceInspectOptions{})
	switch {
	case err == nil && res.Service.Spec.Labels[LabelInstance] == id:
		if _, err := s.cli.ServiceRemove(ctx, res.Service.ID, client.ServiceRemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
			return wrap("stop "+id, err)
		}
	case err != nil && !cerrdefs.IsNotFound(err):
		return wrap("stop "+id, err)
	}
	for {
		left, err := s.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: managedFilter(id)})
		if err != nil {
			return wrap("stop "+id, err)
		}
		if len(left.Items) == 0 {
			return nil
		}
		for _, c := range left.Items {
			_, err := s.cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
			if err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
				return wrap("stop "+id, err)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("instances: stop %s: waiting for its container to go: %w", id, ctx.Err())
		case <-time.After(pollInterval):
		}
	}
}

func (s *swarmEngine) List(ctx context.Context) ([]Instance, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	svcs, err := s.cli.ServiceList(ctx, client.ServiceListOptions{Filters: managedFilter("")})
	if err != nil {
		return nil, wrap("list", err)
	}
	if len(svcs.Items) == 0 {
		return nil, nil
	}
	f := make(client.Filters)
	for _, svc := range svcs.Items {
		f.Add("service", svc.ID)
	}
	tasks, err := s.cli.TaskList(ctx, client.TaskListOptions{Filters: f})
	if err != nil {
		return nil, wrap("list", err)
	}
	byService := map[string][]swarm.Task{}
	for _, t := range tasks.Items {
		byService[t.ServiceID] = append(byService[t.ServiceID], t)
	}
	out := make([]Instance, 0, len(svcs.Items))
	for _, svc := range svcs.Items {
		t, _ := newestTask(byService[svc.ID])
		inst, err := s.instance(ctx, svc.Spec.Labels[LabelInstance], svc.ID, hostPortLabel(svc.Spec.Labels), t, false)
		if err != nil {
			return nil, err
		}
		out = append(out, inst)
	}
	return out, nil
}

// makeNetwork finds or makes the platform's swarm network, and the node's
// config-only network it takes its options from.
func (s *swarmEngine) makeNetwork(ctx context.Context) (string, error) {
	configName := s.opts.Network + "-config"
	if _, err := ensureNetwork(ctx, s.cli, configName, client.NetworkCreateOptions{
		ConfigOnly: true,
		Options:    map[string]string{iccOption: "false"},
		Labels:     map[string]string{LabelManaged: "1"},
	}); err != nil {
		return "", err
	}
	// No labels on this one: the engine takes a network configured from
	// another as having all its settings from there, labels too.
	return ensureNetwork(ctx, s.cli, s.opts.Network, client.NetworkCreateOptions{
		Driver:     "bridge",
		Scope:      "swarm",
		ConfigFrom: configName,
	})
}
