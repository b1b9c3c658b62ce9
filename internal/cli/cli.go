// Package cli is the operator interface of the flagship binary: one file per
// command, all sharing the global options (--db, --json) and environment.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

// Env reads configuration from the environment (os.Getenv in main).
type Env func(string) string

// IO are the standard streams of a command.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// app carries the options every command shares.
type app struct {
	IO
	env  Env
	db   string
	json bool
}

// command is one operator command: its name, its line in the usage text,
// and what it runs, or its subcommands (user create, apikey revoke…).
type command struct {
	name, summary string
	run           func(a *app, ctx context.Context, args []string) error
	subs          []command
}

// commands is every operator command, in the order the usage lists them:
// the one table both the dispatch and the usage text are made from.
var commands = []command{
	{name: "serve", summary: "run the platform (--addr, --public-url, --demo, …)", run: (*app).serve},
	{name: "migrate", summary: "apply schema migrations and exit", run: (*app).migrate},
	{name: "load", summary: "import dataset files, ctfcli challenge.yml files or directories of them", run: (*app).load},
	{name: "dump", summary: "write the whole platform as one dataset (YAML; JSON with --json; --out FILE: mode 0600)", run: (*app).dump},
	{name: "user", subs: []command{
		{name: "create", run: (*app).userCreate},
		{name: "list", run: (*app).userList},
		{name: "reset-password", run: (*app).userResetPassword},
		{name: "disable-2fa", run: (*app).userDisable2FA},
	}},
	{name: "apikey", subs: []command{
		{name: "create", run: (*app).apikeyCreate},
		{name: "list", run: (*app).apikeyList},
		{name: "revoke", run: (*app).apikeyRevoke},
	}},
	{name: "agent", summary: "AI agents' accounts, run by a person", subs: []command{
		{name: "create", run: (*app).agentCreate},
		{name: "list", run: (*app).agentList},
	}},
	{name: "export", summary: "each agent's run: summary.json (NYU CTF Bench), Cybench run logs, attempts.jsonl, times.csv", subs: []command{
		{name: "agents", run: (*app).exportAgents},
	}},
	{name: "instances", summary: "players' running instances (stop: audited)", subs: []command{
		{name: "list", run: (*app).instancesList},
		{name: "stop", run: (*app).instancesStop},
	}},
	{name: "synth", summary: "fill an empty database with a synthetic event (benchmarks, load tests)", run: (*app).synth},
}

// usage is the top-level help, listing commands.
var usage = func() string {
	var b strings.Builder
	b.WriteString("flagship — a self-hosted CTF platform\n\nUsage:\n  flagship [--db DSN] [--json] COMMAND [options]\n\nCommands:\n")
	for _, c := range commands {
		line := c.summary
		if len(c.subs) > 0 {
			line = strings.Join(subNames(c), " | ")
			if c.summary != "" {
				line += ": " + c.summary
			}
		}
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, line)
	}
	b.WriteString("\nEvery command takes --db DSN (env FLAGSHIP_DB; default sqlite:flagship.db)\n" +
		"and --json for machine-readable output. Run \"flagship COMMAND -h\" for details.\n")
	return b.String()
}()

func subNames(c command) []string {
	names := make([]string, len(c.subs))
	for i, s := range c.subs {
		names[i] = s.name
	}
	return names
}

// find returns the command named name in list.
func find(list []command, name string) (command, bool) {
	for _, c := range list {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// dispatch runs c with args, choosing its subcommand first if it has some.
func (a *app) dispatch(ctx context.Context, c command, args []string) error {
	if len(c.subs) == 0 {
		return c.run(a, ctx, args)
	}
	names := subNames(c)
	expected := strings.Join(names, " or ")
	if len(names) > 2 {
		expected = strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	}
	if len(args) == 0 {
		return usagef("expected a subcommand: %s", expected)
	}
	sub, ok := find(c.subs, args[0])
	if !ok {
		return usagef("unknown subcommand %q: expected %s", args[0], expected)
	}
	return sub.run(a, ctx, args[1:])
}

// Run runs the command line args (without the program name) and returns
// the process exit code.
func Run(ctx context.Context, args []string, env Env, stdio IO) int {
	a := &app{IO: stdio, env: env, db: env("FLAGSHIP_DB"), json: envBool(env("FLAGSHIP_JSON"))}
	if a.db == "" {
		a.db = "sqlite:flagship.db"
	}
	fs := flag.NewFlagSet("flagship", flag.ContinueOnError)
	fs.SetOutput(a.Stderr)
	fs.Usage = func() { fmt.Fprint(a.Stderr, usage) }
	a.globalFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fmt.Fprint(a.Stderr, usage)
		return 2
	}
	cmd, ok := find(commands, rest[0])
	if !ok {
		if rest[0] == "help" {
			fmt.Fprint(a.Stdout, usage)
			return 0
		}
		fmt.Fprintf(a.Stderr, "flagship: unknown command %q\n\n%s", rest[0], usage)
		return 2
	}
	if err := a.dispatch(ctx, cmd, rest[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(a.Stderr, "flagship %s: %v\n", rest[0], err)
			return 2
		}
		if a.json {
			json.NewEncoder(a.Stderr).Encode(map[string]string{"error": err.Error()})
		} else {
			fmt.Fprintf(a.Stderr, "flagship %s: %v\n", rest[0], err)
		}
		return 1
	}
	return 0
}

// usageError is a mistake on the command line (exit code 2).
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

func (a *app) globalFlags(fs *flag.FlagSet) {
	fs.StringVar(&a.db, "db", a.db, "database: sqlite:PATH or postgres://… (env FLAGSHIP_DB)")
	fs.BoolVar(&a.json, "json", a.json, "machine-readable JSON output")
}

// flags returns a flag set for a subcommand that also accepts the global
// options after the command name.
func (a *app) flags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("flagship "+name, flag.ContinueOnError)
	fs.SetOutput(a.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(a.Stderr, "Usage: flagship %s\n\nOptions:\n", synopsis)
		fs.PrintDefaults()
	}
	a.globalFlags(fs)
	return fs
}

func (a *app) parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	return nil
}

// open opens and migrates the database.
func (a *app) open(ctx context.Context) (*store.DB, error) {
	db, err := store.Open(ctx, a.db)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// service opens and migrates the database and builds the use cases over it,
// with the hot state loaded: the operator's commands go through the same
// rules as every other front door. closeDB closes the database.
func (a *app) service(ctx context.Context) (svc *platform.Service, closeDB func(), err error) {
	db, err := a.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	svc = platform.New(db, platform.Options{})
	if err := svc.Load(ctx); err != nil {
		db.Close()
		return nil, nil, err
	}
	return svc, func() { db.Close() }, nil
}

// print writes v as JSON with --json, else the text.
func (a *app) print(v any, text string) {
	if a.json {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(v)
		return
	}
	fmt.Fprint(a.Stdout, text)
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(a.Stdout)
	}
}

// logger builds the server's logger from FLAGSHIP_LOG_LEVEL and
// FLAGSHIP_LOG_FORMAT (text or json).
func (a *app) logger() *slog.Logger { return a.loggerTo(a.Stderr) }

// loggerTo is the logger of FLAGSHIP_LOG_LEVEL and FLAGSHIP_LOG_FORMAT
// writing to w.
func (a *app) loggerTo(w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(a.env("FLAGSHIP_LOG_LEVEL"))); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(a.env("FLAGSHIP_LOG_FORMAT"), "json") || a.json {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func envBool(s string) bool {
	switch strings.ToLower(s) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Main is the binary's entry point, kept here so main.go stays a few lines.
func Main(ctx context.Context) int {
	return Run(ctx, os.Args[1:], os.Getenv, IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
}
