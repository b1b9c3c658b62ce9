package dataset

import (
	"reflect"
	"strings"
	"testing"
)

// The event's keys: the settings, scheduled releases, practice submissions
// and announcements, read alike from YAML and JSON.

const eventYAML = `event:
  name: Flagship CTF 2026
  start: 2026-03-01T09:00:00Z
  end: 2026-03-02T09:00:00+01:00
  freeze: "2026-03-02T07:00:00.5Z"
  unfreezeAtEnd: true
  unfrozen: 2026-03-02T07:30:00Z
  practice: true
  flagFormat: ' flag{...} '
challenges:
  - {slug: wave-2, title: Wave 2, categories: [misc], points: 10, flags: [f], releaseAt: 2026-03-01T15:00:00Z}
solves:   [{user: alice, challenge: wave-2, at: 2026-03-03T10:00:00Z, practice: true}]
attempts: [{user: bob, challenge: wave-2, at: 2026-03-03T10:01:00Z, flag: nope, practice: true}, {user: bob, challenge: wave-2, practice: false}]
announcements:
  - id: n1
    title: ' Wave 2 is out '
    body: |
      Go **get** it.
    challenge: Wave 2
    author: alice
    createdAt: 2026-03-01T15:00:00Z
  - {title: Welcome}
`

const eventJSON = `{
  "event": {"name": "Flagship CTF 2026", "start": "2026-03-01T09:00:00Z", "end": "2026-03-02T09:00:00+01:00",
    "freeze": "2026-03-02T07:00:00.5Z", "unfreezeAtEnd": true, "unfrozen": "2026-03-02T07:30:00Z", "practice": true,
    "flagFormat": " flag{...} "},
  "challenges": [{"slug": "wave-2", "title": "Wave 2", "categories": ["misc"], "points": 10, "flags": ["f"], "releaseAt": "2026-03-01T15:00:00Z"}],
  "solves": [{"user": "alice", "challenge": "wave-2", "at": "2026-03-03T10:00:00Z", "practice": true}],
  "attempts": [{"user": "bob", "challenge": "wave-2", "at": "2026-03-03T10:01:00Z", "flag": "nope", "practice": true},
    {"user": "bob", "challenge": "wave-2", "practice": false}],
  "announcements": [{"id": "n1", "title": " Wave 2 is out ", "body": "Go **get** it.\n", "challenge": "Wave 2", "author": "alice",
    "createdAt": "2026-03-01T15:00:00Z"}, {"title": "Welcome"}]
}`

func TestDecodeEventKeys(t *testing.T) {
	for name, content := range map[string]string{"event.yaml": eventYAML, "event.json": eventJSON} {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), name, content)
			got, err := ReadPaths([]string{p})
			if err != nil {
				t.Fatal(err)
			}
			src := func(i int) Source { return Source{File: p, Index: i} }
			want := &Event{Name: "Flagship CTF 2026", Start: ts("2026-03-01T09:00:00Z"), End: ts("2026-03-02T08:00:00Z"),
				Freeze: ts("2026-03-02T07:00:00.5Z"), UnfreezeAtEnd: true, Unfrozen: ts("2026-03-02T07:30:00Z"), Practice: true,
				FlagFormat: "flag{...}", Source: Source{File: p}}
			if !reflect.DeepEqual(got.Event, want) {
				t.Errorf("event:\ngot  %+v\nwant %+v", got.Event, want)
			}
			if r := got.Challenges[0].ReleaseAt; r == nil || !r.Equal(*ts("2026-03-01T15:00:00Z")) {
				t.Errorf("releaseAt = %v", r)
			}
			if !got.Solves[0].Practice || !got.Attempts[0].Practice || got.Attempts[1].Practice {
				t.Errorf("practice marks: solve %v, attempts %v %v", got.Solves[0].Practice, got.Attempts[0].Practice, got.Attempts[1].Practice)
			}
			wantA := []Announcement{
				{ID: "n1", Title: "Wave 2 is out", Body: "Go **get** it.", Challenge: "Wave 2", Author: "alice",
					CreatedAt: ts("2026-03-01T15:00:00Z"), Source: src(0)},
				{Title: "Welcome", Source: src(1)},
			}
			if !reflect.DeepEqual(got.Announcements, wantA) {
				t.Errorf("announcements:\ngot  %+v\nwant %+v", got.Announcements, wantA)
			}
			if file, entry := got.Where("event", 0); file != p || entry != "event" {
				t.Errorf("Where(event) = %q, %q", file, entry)
			}
			if _, entry := got.Where("announcements", 1); entry != `announcements[1] (title "Welcome")` {
				t.Errorf("Where(announcements, 1) = %q", entry)
			}
		})
	}
}

// TestEventErrors: bad event keys fail naming the file, the entry and the
// field, as every other key does (the table's runner is TestErrors's).
func TestEventErrors(t *testing.T) {
	ann := func(lines ...string) []fixture {
		return []fixture{{"event.yaml", "announcements:\n  - {" + strings.Join(lines, ", ") + "}\n"}}
	}
	ev := func(body string) []fixture { return []fixture{{"event.yaml", "event: {" + body + "}\n"}} }
	long := strings.Repeat("é", 201)
	runErrorCases(t, []errorCase{
		{"event unknown key", ev("name: X, strat: 2026-01-01T00:00:00Z"), "event.yaml", "event", "strat"},
		{"event bad time", ev("start: tomorrow"), "event.yaml", "event", "start"},
		{"event time as number", ev("end: 1767225600"), "event.yaml", "event", "end"},
		{"event end before start", ev("start: 2026-01-02T00:00:00Z, end: 2026-01-01T00:00:00Z"), "event.yaml", "event", "end"},
		{"event end equal to start", ev("start: 2026-01-02T00:00:00Z, end: 2026-01-02T00:00:00Z"), "event.yaml", "event", "end"},
		{"event freeze after end", ev("end: 2026-01-02T00:00:00Z, freeze: 2026-01-03T00:00:00Z"), "event.yaml", "event", "freeze"},
		{"event freeze before start", ev("start: 2026-01-02T00:00:00Z, freeze: 2026-01-01T00:00:00Z"), "event.yaml", "event", "freeze"},
		{"event unfreezeAtEnd without end", ev("unfreezeAtEnd: true"), "event.yaml", "event", "unfreezeAtEnd"},
		{"event unfrozen without freeze", ev("unfrozen: 2026-01-01T00:00:00Z"), "event.yaml", "event", "unfrozen"},
		{"event practice string", ev("practice: 'yes'"), "event.yaml", "event", "practice"},
		{"event name too long", ev("name: " + long), "event.yaml", "event", "name"},
		{"event flag format too long", ev("flagFormat: " + long), "event.yaml", "event", "flagFormat"},
		{"event is a list", []fixture{{"event.yaml", "event: [a]\n"}}, "event.yaml", "event", ""},
		{"event in two files", []fixture{{"a.yaml", "event: {name: A}\n"}, {"b.yaml", "event: {name: B}\n"}}, "b.yaml", "event", ""},
		{"releaseAt not a time", []fixture{{"event.yaml", "challenges:\n" + chal("x", "releaseAt: soon")}},
			"event.yaml", `challenges[0] (slug "x")`, "releaseAt"},
		{"solve practice string", []fixture{{"event.yaml", "solves:\n  - {user: a, challenge: x, practice: 'true'}\n"}},
			"event.yaml", "solves[0]", "practice"},
		{"attempt practice number", []fixture{{"event.yaml", "attempts:\n  - {user: a, challenge: x, practice: 1}\n"}},
			"event.yaml", "attempts[0]", "practice"},
		{"announcement without title", ann("body: text"), "event.yaml", "announcements[0]", "title"},
		{"announcement blank title", ann("title: '  '"), "event.yaml", "announcements[0]", "title"},
		{"announcement title too long", ann("title: " + long), "event.yaml", `announcements[0] (title "` + long + `")`, "title"},
		{"announcement body too long", ann("title: T", "body: "+strings.Repeat("b", 20001)), "event.yaml", `announcements[0] (title "T")`, "body"},
		{"announcement unknown key", ann("title: T", "message: hi"), "event.yaml", `announcements[0] (title "T")`, "message"},
		{"announcement bad createdAt", ann("title: T", "createdAt: now"), "event.yaml", `announcements[0] (title "T")`, "createdAt"},
		{"announcement duplicate id", []fixture{{"event.yaml", "announcements:\n  - {id: n, title: A}\n  - {id: n, title: B}\n"}},
			"event.yaml", `announcements[1] (title "B")`, "id"},
		{"announcement twice without id", []fixture{{"event.yaml", "announcements:\n  - {title: A}\n  - {title: A, body: again}\n"}},
			"event.yaml", `announcements[1] (title "A")`, "title"},
		{"announcements not a list", []fixture{{"event.yaml", "announcements: {title: A}\n"}}, "event.yaml", "", "announcements"},
	})
}
