package transfer_test

// The event's keys of a dataset on both engines: settings, scheduled
// releases, practice submissions and announcements are loaded in the one
// transaction, read back by the hot state's snapshot, reloaded without
// change and dumped back.

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/transfer"
)

const eventYAML = `
event:
  name: Flagship CTF
  start: 2026-01-04T00:00:00Z
  end: 2026-01-06T00:00:00Z
  freeze: 2026-01-05T12:00:00Z
  unfreezeAtEnd: true
  unfrozen: 2026-01-05T13:00:00Z
  practice: true
  flagFormat: flag{...}
challenges:
  - {slug: wave-2, title: Wave 2, categories: [misc], points: 10, flags: ['flag{w2}'], releaseAt: 2026-01-05T00:00:00.250Z,
     createdAt: 2026-01-03T02:00:00Z}
solves:
  - {user: bob, challenge: warmup, at: 2026-01-07T10:00:00Z, flag: 'flag{warm}', practice: true}
attempts:
  - {user: bob, challenge: wave-2, at: 2026-01-07T10:01:00Z, flag: nope, practice: true}
announcements:
  - {id: ann-1, title: Welcome, body: Have *fun*., author: carol, createdAt: 2026-01-04T00:00:00Z}
  - {title: Wave 2 is out, body: Go., challenge: Wave 2, createdAt: 2026-01-05T00:00:00.250Z}
  - {title: Undated}
`

func TestLoadEventKeys(t *testing.T) {
	ctx := context.Background()
	db := baseDB(t)
	path := writeFile(t, t.TempDir(), "event.yaml", eventYAML)
	rep := mustLoad(t, db, path)
	if want := map[string]int{"event": 1, "challenges": 1, "solves": 1, "attempts": 1, "announcements": 3}; !reflect.DeepEqual(rep.Created, want) {
		t.Errorf("created %v, want %v", rep.Created, want)
	}

	// What the hot state is built from (platform's newState reads the
	// snapshot after the load's revision bump).
	snap, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	wantEvent := ctf.Event{Name: "Flagship CTF", Start: at("2026-01-04T00:00:00Z"), End: at("2026-01-06T00:00:00Z"),
		Freeze: at("2026-01-05T12:00:00Z"), UnfreezeAtEnd: true, Unfrozen: at("2026-01-05T13:00:00Z"), Practice: true, FlagFormat: "flag{...}"}
	if !reflect.DeepEqual(snap.Event, wantEvent) {
		t.Errorf("event settings %+v, want %+v", snap.Event, wantEvent)
	}
	ids := map[string]string{}
	for _, c := range snap.Challenges {
		ids[c.Slug] = c.ID
		switch {
		case c.Slug == "wave-2" && (c.ReleaseAt == nil || !c.ReleaseAt.Equal(*at("2026-01-05T00:00:00.250Z"))):
			t.Errorf("wave-2 releases at %v", c.ReleaseAt)
		case c.Slug != "wave-2" && c.ReleaseAt != nil:
			t.Errorf("%s releases at %v; want no release time", c.Slug, c.ReleaseAt)
		}
	}
	practice := 0
	for _, s := range snap.Solves {
		if s.Practice {
			practice++
			if s.ChallengeID != ids["warmup"] {
				t.Errorf("practice solve of %s, want warmup", s.ChallengeID)
			}
		}
	}
	if practice != 1 || len(snap.Solves) != 2 {
		t.Errorf("%d solves, %d practice; want 2, 1", len(snap.Solves), practice)
	}
	if n := snap.WrongAttempts[ids["wave-2"]]; n != 0 {
		t.Errorf("wave-2 counts %d wrong attempts; a practice attempt counts nowhere", n)
	}
	if len(snap.Announcements) != 3 {
		t.Fatalf("announcements %+v", snap.Announcements)
	}
	welcome, wave := snap.Announcements[0], snap.Announcements[1]
	if welcome.ID != "ann-1" || welcome.Body != "Have *fun*." || welcome.AuthorID == "" || welcome.ChallengeID != "" {
		t.Errorf("welcome announcement %+v", welcome)
	}
	if wave.Title != "Wave 2 is out" || wave.ChallengeID != ids["wave-2"] || wave.AuthorID != "" || wave.ID == "" {
		t.Errorf("wave announcement %+v", wave)
	}

	// Loading the same file again changes nothing, the undated
	// announcement included (its natural key is its title).
	before := dump(t, db)
	again := mustLoad(t, db, path)
	if total(again.Created) != 0 || total(again.Updated) != 0 || again.Unchanged["event"] != 1 || again.Unchanged["announcements"] != 3 {
		t.Errorf("second load: created %v updated %v unchanged %v", again.Created, again.Updated, again.Unchanged)
	}
	sameDump(t, before, dump(t, db))

	// The dump writes it all back.
	d := dump(t, db)
	if d.Event == nil || !reflect.DeepEqual(d.Event.Settings(), wantEvent) {
		t.Errorf("dumped event %+v", d.Event)
	}
	if i := d.ChallengeIndex("wave-2"); i < 0 || d.Challenges[i].ReleaseAt == nil {
		t.Errorf("dumped challenges lack wave-2's release time")
	}
	if len(d.Announcements) != 3 || d.Announcements[0].Author != "carol" || d.Announcements[1].Challenge != "wave-2" {
		t.Errorf("dumped announcements %+v", d.Announcements)
	}
	if !hasPractice(d) {
		t.Errorf("dumped solves and attempts lack their practice marks: %+v %+v", d.Solves, d.Attempts)
	}

	// A file without the event key leaves the settings alone; one with
	// the same freeze time and no unfreeze mark keeps the admin's unfreeze;
	// a new freeze time clears it.
	mustLoad(t, db, writeFile(t, t.TempDir(), "users.yaml", "users: [{username: erin}]\n"))
	if e, _ := db.EventSettings(ctx); !reflect.DeepEqual(e, wantEvent) {
		t.Errorf("settings after a load without the event key: %+v", e)
	}
	mustLoad(t, db, writeFile(t, t.TempDir(), "ev.yaml", "event: {name: Renamed, start: 2026-01-04T00:00:00Z, end: 2026-01-06T00:00:00Z, freeze: 2026-01-05T12:00:00Z}\n"))
	if e, _ := db.EventSettings(ctx); e.Name != "Renamed" || e.Unfrozen == nil || e.Practice || e.FlagFormat != "" {
		t.Errorf("settings after an edit keeping the freeze time: %+v; want renamed, still unfrozen, the rest replaced", e)
	}
	rep = mustLoad(t, db, writeFile(t, t.TempDir(), "ev.yaml", "event: {start: 2026-01-04T00:00:00Z, end: 2026-01-06T00:00:00Z, freeze: 2026-01-05T14:00:00Z}\n"))
	if e, _ := db.EventSettings(ctx); e.Unfrozen != nil || rep.Updated["event"] != 1 {
		t.Errorf("settings after a new freeze time: %+v (report %v); want the unfreeze cleared", e, rep.Updated)
	}
}

func hasPractice(d *dataset.Dataset) bool {
	s, a := false, false
	for _, x := range d.Solves {
		s = s || x.Practice
	}
	for _, x := range d.Attempts {
		a = a || x.Practice
	}
	return s && a
}

// TestLoadDumpEventIntoEmptyDatabase: dump | load into an empty database
// gives the same dump, the event's keys included.
func TestLoadDumpEventIntoEmptyDatabase(t *testing.T) {
	ctx := context.Background()
	db := baseDB(t)
	mustLoad(t, db, writeFile(t, t.TempDir(), "event.yaml", eventYAML))
	first := dump(t, db)
	other := openDB(t)
	if _, err := transfer.Load(ctx, other, first); err != nil {
		t.Fatal(err)
	}
	sameDump(t, first, dump(t, other))
	a, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := other.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Event, b.Event) || !reflect.DeepEqual(a.Announcements, b.Announcements) {
		t.Errorf("after dump | load:\nevent %+v\n   vs %+v\nannouncements %+v\n           vs %+v", a.Event, b.Event, a.Announcements, b.Announcements)
	}
}
