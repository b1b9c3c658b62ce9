package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/transfer"
)

func (a *app) migrate(ctx context.Context, args []string) error {
	fs := a.flags("migrate", "migrate [--db DSN]")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	a.print(map[string]any{"migrated": true}, "database is up to date")
	return nil
}

func (a *app) load(ctx context.Context, args []string) error {
	fs := a.flags("load", "load [--db DSN] [--json] [--skip-invalid] PATH...")
	skip := fs.Bool("skip-invalid", false, "load every valid challenge and report each one left out with its reasons, rather than load nothing")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("name at least one dataset file, challenge.yml or directory (- reads standard input)")
	}
	var ds *dataset.Dataset
	var refused []dataset.Refusal
	var err error
	if *skip {
		ds, refused, err = dataset.ReadPathsSkipping(fs.Args())
	} else {
		ds, err = dataset.ReadPaths(fs.Args())
	}
	if err != nil {
		return err
	}
	// Decoding leaves garbage several times the size of the dataset, which
	// the runtime would keep while the database work adds its own: give it
	// back first (a load of 400,000 submissions peaks 50 MB lower).
	debug.FreeOSMemory()
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	// A bulk change: the use case needs no hot state here, and running
	// servers rebuild theirs once.
	rep, err := platform.New(db, platform.Options{}).Admin.Import(ctx, ctf.Operator, ds)
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintln(a.Stderr, "warning:", w)
	}
	rep.Refused = append(refused, rep.Refused...)
	notes := challengeNotes(ds)
	a.print(loadOutput{rep, notes}, formatReport(rep.LoadReport)+formatNotes(notes))
	return nil
}

// loadOutput is what load prints: the report, and per challenge slug what
// the readers of benchmark tasks could not carry over (dataset.Challenge's
// Notes), which the organiser has to finish by hand.
type loadOutput struct {
	platform.ImportReport
	Notes map[string][]string `json:"notes,omitempty"`
}

func challengeNotes(ds *dataset.Dataset) map[string][]string {
	var out map[string][]string
	for _, c := range ds.Challenges {
		if len(c.Notes) > 0 {
			if out == nil {
				out = map[string][]string{}
			}
			out[c.Slug] = append(out[c.Slug], c.Notes...)
		}
	}
	return out
}

// formatNotes writes the notes by slug, in order.
func formatNotes(notes map[string][]string) string {
	if len(notes) == 0 {
		return ""
	}
	slugs := make([]string, 0, len(notes))
	for s := range notes {
		slugs = append(slugs, s)
	}
	sort.Strings(slugs)
	var b strings.Builder
	b.WriteString("notes:\n")
	for _, s := range slugs {
		for _, n := range notes[s] {
			fmt.Fprintf(&b, "  %s: %s\n", s, n)
		}
	}
	return b.String()
}

func formatReport(r transfer.LoadReport) string {
	var b strings.Builder
	kinds := map[string]bool{}
	for _, m := range []map[string]int{r.Created, r.Updated, r.Unchanged} {
		for k := range m {
			kinds[k] = true
		}
	}
	if len(kinds) == 0 && len(r.Refused) == 0 {
		return "nothing to load"
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&b, "%-11s %d created, %d updated, %d unchanged\n", k+":", r.Created[k], r.Updated[k], r.Unchanged[k])
	}
	if len(r.Refused) > 0 {
		noun := "challenges"
		if len(r.Refused) == 1 {
			noun = "challenge"
		}
		fmt.Fprintf(&b, "refused:    %d %s, left out:\n", len(r.Refused), noun)
		for _, x := range r.Refused {
			fmt.Fprintf(&b, "  %s\n", x)
		}
	}
	return b.String()
}

func (a *app) dump(ctx context.Context, args []string) error {
	fs := a.flags("dump", "dump [--db DSN] [--json] [--out FILE]")
	out := fs.String("out", "", "write the dump to `FILE` (mode 0600; replaces a file there) instead of standard output")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("dump takes no arguments; write to a file with --out FILE")
	}
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	ds, err := platform.New(db, platform.Options{}).Admin.Export(ctx, ctf.Operator)
	if err != nil {
		return err
	}
	format := "yaml"
	if a.json {
		format = "json"
	}
	if *out == "" {
		return dataset.Encode(a.Stdout, ds, format)
	}
	return writePrivate(*out, func(w io.Writer) error { return dataset.Encode(w, ds, format) })
}

// writePrivate writes a file only its owner may read, as a dump must be:
// it holds password hashes, two-factor secrets and webhook secrets. The
// file is created with mode 0600 from the start (never loosened and then
// tightened) under a temporary name in the same directory, and renamed
// into place once complete, so a reader never sees half a dump and a
// failed dump leaves the previous file as it was.
func writePrivate(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp") // mode 0600
	if err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	return nil
}
