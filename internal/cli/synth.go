package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/synth"
)

// synth fills an empty database with a synthetic event for benchmarks and
// load tests.
func (a *app) synth(ctx context.Context, args []string) error {
	def := synth.Default()
	fs := a.flags("synth", "synth [--db DSN] [--players N --challenges N --solves N --attempts N --keys K --keys-out FILE --seed S --dynamic]")
	players := fs.Int("players", def.Players, "players")
	challenges := fs.Int("challenges", def.Challenges, "challenges")
	solves := fs.Int("solves", def.Solves, "solves by players")
	attempts := fs.Int("attempts", def.Attempts, "wrong submissions by players")
	keys := fs.Int("keys", 0, "mint an API key for each of the first K players")
	keysOut := fs.String("keys-out", "", "write the minted keys' secrets to FILE, one per line")
	targetsOut := fs.String("targets-out", "", `write "KEY SLUG" lines to FILE: challenges each keyed player can submit to (unlocked, unsolved), for load tests`)
	perKey := fs.Int("targets-per-key", 20, "at most this many --targets-out lines per key")
	seed := fs.Uint64("seed", def.Seed, "random seed: the same seed generates the same event (API key secrets aside)")
	dynamic := fs.Bool("dynamic", false, "make every challenge dynamic (its points down to a fifth, logarithmic, the minimum at a tenth of the players)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	cfg := synth.Config{Players: *players, Challenges: *challenges, Solves: *solves, Attempts: *attempts, Keys: *keys, Seed: *seed, Dynamic: *dynamic}
	if err := cfg.Validate(); err != nil {
		return usagef("%s", strings.TrimPrefix(err.Error(), "synth: "))
	}
	if *keys > 0 && *keysOut == "" {
		return usagef("--keys needs --keys-out FILE: the secrets are shown nowhere else")
	}
	if *targetsOut != "" && *keys == 0 {
		return usagef("--targets-out needs --keys")
	}
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	empty, err := db.Empty(ctx)
	if err != nil {
		return err
	}
	if !empty {
		return fmt.Errorf("%s already holds an event: synth writes only into an empty database", a.db)
	}

	start := time.Now()
	ev, err := synth.Generate(cfg)
	if err != nil {
		return err
	}
	genDone := time.Now()
	rep, err := ev.Write(ctx, db)
	if err != nil {
		return err
	}
	total := time.Since(start)
	if *keysOut != "" {
		var b strings.Builder
		for _, k := range ev.Keys {
			b.WriteString(k.Secret + "\n")
		}
		if err := os.WriteFile(*keysOut, []byte(b.String()), 0o600); err != nil {
			return fmt.Errorf("write keys: %w", err)
		}
	}
	if *targetsOut != "" {
		var b strings.Builder
		for _, t := range ev.Targets(*perKey) {
			b.WriteString(t.Key + " " + t.Slug + "\n")
		}
		if err := os.WriteFile(*targetsOut, []byte(b.String()), 0o600); err != nil {
			return fmt.Errorf("write targets: %w", err)
		}
	}
	out := map[string]any{"rows": rep, "generateSeconds": genDone.Sub(start).Seconds(), "totalSeconds": total.Seconds(),
		"keysOut": *keysOut, "seed": cfg.Seed}
	a.print(out, fmt.Sprintf("synthetic event written in %.1fs: %d users, %d challenges (%d flags, %d prerequisites), "+
		"%d solves, %d wrong attempts, %d reviews, %d writeups, %d API keys%s",
		total.Seconds(), rep.Users, rep.Challenges, rep.Flags, rep.Prerequisites, rep.Solves, rep.Attempts,
		rep.Reviews, rep.Writeups, rep.APIKeys, keysNote(*keysOut)))
	return nil
}

func keysNote(path string) string {
	if path == "" {
		return ""
	}
	return " (secrets in " + path + ")"
}
