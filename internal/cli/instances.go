package cli

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/instances"
	"github.com/flagshipctf/flagship/internal/platform"
)

// instanceFlags are serve's options for players' instances.
type instanceFlags struct {
	env                 Env
	engine, host, ports *string
	perPlayer, max      *int
}

func (a *app) instanceFlags(fs *flag.FlagSet) instanceFlags {
	return instanceFlags{
		env: a.env,
		engine: fs.String("instances", envOr(a.env, "FLAGSHIP_INSTANCES", "off"),
			"players' instances: off, docker or swarm, on the engine of DOCKER_HOST (env FLAGSHIP_INSTANCES)"),
		host: fs.String("instance-host", a.env("FLAGSHIP_INSTANCE_HOST"),
			"the host name players connect to their instances on (env FLAGSHIP_INSTANCE_HOST; default the host of --public-url, else localhost)"),
		ports: fs.String("instance-ports", envOr(a.env, "FLAGSHIP_INSTANCE_PORTS",
			fmt.Sprintf("%d-%d", platform.DefaultInstancePortFrom, platform.DefaultInstancePortTo)),
			"the range of host ports instances are published on, FROM-TO (env FLAGSHIP_INSTANCE_PORTS)"),
		perPlayer: fs.Int("instances-per-player", envInt(a.env, "FLAGSHIP_INSTANCES_PER_PLAYER", platform.DefaultInstancesPerPlayer),
			"instances one player may run at once; 0 for no limit (env FLAGSHIP_INSTANCES_PER_PLAYER)"),
		max: fs.Int("instances-max", envInt(a.env, "FLAGSHIP_INSTANCES_MAX", platform.DefaultInstancesMax),
			"instances the event runs at once; 0 for no limit (env FLAGSHIP_INSTANCES_MAX)"),
	}
}

// options checks the flags and returns the instance options with the
// engine they name (nil when off), which the caller closes. publicURL is
// --public-url as given, whose host is the default instance host.
func (f instanceFlags) options(publicURL string) (platform.InstanceOptions, error) {
	from, to, err := parsePortRange(*f.ports)
	if err != nil {
		return platform.InstanceOptions{}, usagef("--instance-ports: %v", err)
	}
	if *f.perPlayer < 0 || *f.max < 0 {
		return platform.InstanceOptions{}, usagef("--instances-per-player and --instances-max must be ≥ 0")
	}
	host := strings.TrimSpace(*f.host)
	if host == "" {
		host = "localhost"
		if u, err := url.Parse(publicURL); err == nil && u.Hostname() != "" {
			host = u.Hostname()
		}
	}
	if strings.ContainsAny(host, " \t/@?#") {
		return platform.InstanceOptions{}, usagef("--instance-host must be a host name or address, not %q", host)
	}
	if *f.engine != "off" && *f.engine != "docker" && *f.engine != "swarm" {
		return platform.InstanceOptions{}, usagef("--instances must be off, docker or swarm, not %q", *f.engine)
	}
	opts := platform.InstanceOptions{Host: host, PortFrom: from, PortTo: to, PerPlayer: *f.perPlayer, Max: *f.max}
	if *f.engine == "off" {
		return opts, nil
	}
	opts.EngineName = *f.engine
	opts.Engine, err = newEngine(f.env, *f.engine)
	return opts, err
}

// newEngine is the engine named docker or swarm, on the engine of
// DOCKER_HOST (or the local socket), as the Docker client finds it.
func newEngine(env Env, name string) (instances.Engine, error) {
	var e instances.Engine
	var err error
	opts := instances.Options{Host: env("DOCKER_HOST")}
	switch name {
	case "docker":
		e, err = instances.NewDocker(opts)
	case "swarm":
		e, err = instances.NewSwarm(opts)
	default:
		return nil, fmt.Errorf("instances: unknown engine %q", name)
	}
	if err != nil {
		return nil, fmt.Errorf("instances: %w", err)
	}
	return e, nil
}

// parsePortRange reads FROM-TO, two ports with FROM ≤ TO.
func parsePortRange(s string) (from, to int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok {
		return 0, 0, fmt.Errorf("want FROM-TO, such as 30000-31000, not %q", s)
	}
	from, err1 := strconv.Atoi(strings.TrimSpace(a))
	to, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, fmt.Errorf("want FROM-TO, such as 30000-31000, not %q", s)
	case from < 1 || to > 65535 || from > to:
		return 0, 0, fmt.Errorf("want two ports from 1 to 65535, the first not above the second, not %q", s)
	}
	return from, to, nil
}

// reconcileInstances makes the engine and the database agree at start. An
// engine that does not answer is only a warning: the rest of the platform
// serves, and players asking for an instance are told to try again.
func reconcileInstances(ctx context.Context, svc *platform.Service, opts platform.InstanceOptions, log *slog.Logger) {
	if opts.Engine == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := svc.Instances.Reconcile(ctx); err != nil {
		log.Warn("reconcile the instances with the engine; players get 503 until it answers", "engine", opts.EngineName, "err", err)
		return
	}
	log.Info("instances reconciled", "engine", opts.EngineName, "host", opts.Host, "ports", fmt.Sprintf("%d-%d", opts.PortFrom, opts.PortTo))
}

func (a *app) instancesList(ctx context.Context, args []string) error {
	fs := a.flags("instances list", "instances list")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	svc, closeDB, err := a.service(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	rows, err := svc.Instances.Running(ctx, ctf.Operator)
	if err != nil {
		return err
	}
	type item struct {
		ID        string    `json:"id"`
		Challenge string    `json:"challenge"`
		User      string    `json:"user"`
		Status    string    `json:"status"`
		Engine    string    `json:"engine"`
		EngineID  string    `json:"engineId"`
		Host      string    `json:"host"`
		Port      int       `json:"port"`
		StartedAt time.Time `json:"startedAt"`
		ExpiresAt time.Time `json:"expiresAt"`
	}
	items := make([]item, 0, len(rows))
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCHALLENGE\tUSER\tSTATUS\tHOST:PORT\tSTARTED\tEXPIRES")
	for _, r := range rows {
		items = append(items, item{r.ID, r.Challenge, r.Username, r.Status, r.Engine, r.EngineID, r.Host, r.Port, r.StartedAt.UTC(), r.ExpiresAt.UTC()})
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Challenge, orDash(r.Username), r.Status,
			hostPort(r.Host, r.Port), r.StartedAt.UTC().Format(time.RFC3339), r.ExpiresAt.UTC().Format(time.RFC3339))
	}
	tw.Flush()
	if len(rows) == 0 {
		b.Reset()
		b.WriteString("no instance runs")
	}
	a.print(map[string]any{"instances": items}, b.String())
	return nil
}

func (a *app) instancesStop(ctx context.Context, args []string) error {
	fs := a.flags("instances stop", "instances stop --id ID")
	id := fs.String("id", "", "the instance's id (flagship instances list)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if *id == "" {
		return usagef("--id is required")
	}
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	// The instance is stopped on the engine it was started on, which the
	// database records: the operator need not say which. It is read before
	// the service is built, so the event's state is loaded once.
	var opts platform.Options
	row, ok, err := db.Instances().ByID(ctx, *id)
	if err != nil {
		return err
	}
	if ok && row.StoppedAt == nil {
		engine, err := newEngine(a.env, row.Engine)
		if err != nil {
			return err
		}
		defer engine.Close()
		opts.Instances = platform.InstanceOptions{Engine: engine, EngineName: row.Engine}
	}
	svc := platform.New(db, opts)
	if err := svc.Load(ctx); err != nil {
		return err
	}
	if err := svc.Instances.StopByID(ctx, ctf.Operator, *id); err != nil {
		return err
	}
	a.print(map[string]any{"stopped": *id}, "stopped instance "+*id)
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func hostPort(host string, port int) string {
	if host == "" {
		host = "-"
	}
	return host + ":" + strconv.Itoa(port)
}
