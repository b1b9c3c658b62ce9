package transfer_test

// The positive side of the `load` error suite: reloading is idempotent and
// reports what changed.

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/store"
)

// TestLoadTwiceUnchanged: loading the same file twice creates and updates
// nothing the second time and reports every entry unchanged.
func TestLoadTwiceUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       map[string]int
	}{
		{"with API keys", baseYAML, map[string]int{"users": 3, "apiKeys": 1, "challenges": 2, "solves": 1, "attempts": 1, "writeups": 1, "reviews": 1}},
		{"without API keys", baseUsers + baseRest, map[string]int{"users": 3, "challenges": 2, "solves": 1, "attempts": 1, "writeups": 1, "reviews": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			path := writeFile(t, t.TempDir(), "event.yaml", tc.yaml)
			first := mustLoad(t, db, path)
			if !reflect.DeepEqual(first.Created, tc.want) || total(first.Updated) != 0 || total(first.Unchanged) != 0 {
				t.Errorf("first load: created %v updated %v unchanged %v; want created %v only", first.Created, first.Updated, first.Unchanged, tc.want)
			}
			before := dump(t, db)
			second := mustLoad(t, db, path)
			if total(second.Created) != 0 || total(second.Updated) != 0 {
				t.Errorf("second load: created %v, updated %v; want nothing", second.Created, second.Updated)
			}
			if !reflect.DeepEqual(second.Unchanged, tc.want) {
				t.Errorf("second load: unchanged %v, want %v", second.Unchanged, tc.want)
			}
			sameDump(t, before, dump(t, db))
		})
	}
}

// TestLoadEditPoints: changing one challenge's points and reloading reports
// exactly one updated challenge, and only that changes. (The dataset has no
// API keys: their reload report is checked by TestLoadTwiceUnchanged.)
func TestLoadEditPoints(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	yaml := baseUsers + baseRest
	path := writeFile(t, dir, "event.yaml", yaml)
	mustLoad(t, db, path)
	before := dump(t, db)

	edited := strings.Replace(yaml, "points: 100", "points: 150", 1)
	if edited == yaml {
		t.Fatal("edit did not apply")
	}
	writeFile(t, dir, "event.yaml", edited)
	rep := mustLoad(t, db, path)
	if total(rep.Created) != 0 {
		t.Errorf("created %v, want nothing", rep.Created)
	}
	if !reflect.DeepEqual(rep.Updated, map[string]int{"challenges": 1}) {
		t.Errorf("updated %v, want exactly one challenge", rep.Updated)
	}
	if rep.Unchanged["challenges"] != 1 || rep.Unchanged["users"] != 3 || rep.Unchanged["solves"] != 1 {
		t.Errorf("unchanged %v, want the other challenge, the users and the solve", rep.Unchanged)
	}
	after := dump(t, db)
	for i := range after.Challenges {
		c := after.Challenges[i]
		if c.Slug == "baby-rsa" {
			if c.Points != 150 {
				t.Errorf("baby-rsa has %d points after the edit, want 150", c.Points)
			}
			after.Challenges[i].Points = 100 // the only expected difference
		}
	}
	sameDump(t, before, after)
}

// TestLoadEditRequires: changing only a challenge's prerequisites changes
// the database, so the report must count that challenge as updated.
func TestLoadEditRequires(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	yaml := baseUsers + baseRest
	path := writeFile(t, dir, "event.yaml", yaml)
	mustLoad(t, db, path)

	edited := strings.Replace(yaml, "    requires: [warmup]\n", "", 1)
	if edited == yaml {
		t.Fatal("edit did not apply")
	}
	writeFile(t, dir, "event.yaml", edited)
	rep := mustLoad(t, db, path)
	for _, c := range dump(t, db).Challenges {
		if c.Slug == "baby-rsa" && len(c.Requires) != 0 {
			t.Fatalf("baby-rsa still requires %v", c.Requires)
		}
	}
	if !reflect.DeepEqual(rep.Updated, map[string]int{"challenges": 1}) || total(rep.Created) != 0 {
		t.Errorf("created %v updated %v, want exactly one updated challenge (its prerequisites changed)", rep.Created, rep.Updated)
	}
}

// TestLoadDumpIntoSameDatabase: `flagship dump | flagship load` into the
// database it came from changes nothing and reports everything unchanged;
// into an empty database it reproduces the same dump.
func TestLoadDumpIntoSameDatabase(t *testing.T) {
	db := baseDB(t)
	// Some live play on top of the loaded event.
	if _, err := db.Play().RecordSubmission(context.Background(), store.Submission{UserID: bobID, ChallengeID: warmupID, Flag: "flag{warm}", Correct: true,
		At: time.Date(2026, 1, 7, 8, 9, 10, 123e6, time.UTC)}, store.RateLimit{}); err != nil {
		t.Fatal(err)
	}
	before := dump(t, db)
	var buf bytes.Buffer
	if err := dataset.Encode(&buf, before, "yaml"); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, t.TempDir(), "dump.yaml", buf.String())

	rep := mustLoad(t, db, path)
	if total(rep.Created) != 0 || total(rep.Updated) != 0 {
		t.Errorf("reloading the dump: created %v updated %v, want nothing", rep.Created, rep.Updated)
	}
	sameDump(t, before, dump(t, db))

	fresh := openDB(t)
	mustLoad(t, fresh, path)
	sameDump(t, before, dump(t, fresh))
}
