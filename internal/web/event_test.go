package web_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// inputValue is t as the event form's datetime-local fields take it (UTC).
func inputValue(t time.Time) string { return t.UTC().Format("2006-01-02T15:04") }

// TestAdminSetsTheEvent: the event page's form calls SetEvent; what was
// saved shows again in UTC; a refusal (the use case's or a time that does
// not parse) keeps what was typed, says which field, and changes nothing.
func TestAdminSetsTheEvent(t *testing.T) {
	t.Parallel()
	clk := newTestClock()
	s := apitest.Start(t, adminEvent, apitest.Options{Now: clk.now})
	root := logIn(t, s, "root")
	want(t, "empty form", root.get("/admin/event"), 200, "<h1>Event</h1>", "Times are in <strong>UTC</strong>", "Running.",
		`name="start"`, `type="datetime-local"`, `href="/admin/event"`)

	start := clk.now().Add(2*time.Hour + 13*time.Minute).Truncate(time.Minute)
	end, freeze := start.Add(48*time.Hour), start.Add(47*time.Hour)
	form := url.Values{"name": {"Winter CTF"}, "start": {inputValue(start)}, "end": {inputValue(end)}, "freeze": {inputValue(freeze)},
		"unfreezeAtEnd": {"1"}, "practice": {"1"}, "flagFormat": {"WCTF{...}"}}
	saved := root.send("/admin/event", form)
	ev := s.Svc.Event.Current()
	wantEvent := ctf.Event{Name: "Winter CTF", Start: &start, End: &end, Freeze: &freeze, UnfreezeAtEnd: true, Practice: true, FlagFormat: "WCTF{...}"}
	if !reflect.DeepEqual(ev.Event, wantEvent) {
		t.Fatalf("saved %+v, want %+v", ev.Event, wantEvent)
	}
	want(t, "saved", saved, 200, "settings are saved", "Before the start.", "in 2 h 13 min",
		`value="`+inputValue(start)+`"`, `value="`+inputValue(end)+`"`, `datetime="`+ctf.FormatTime(start)+`"`,
		start.UTC().Format("2 Jan 2006, 15:04")+" UTC", "<title>Event · Admin · Winter CTF</title>", "</svg> Winter CTF", "WCTF{...}")

	refused := []struct {
		name   string
		change url.Values
		msg    string
		field  string
	}{
		{"end before start", url.Values{"end": {inputValue(start.Add(-time.Hour))}}, "End must be after the start", "end"},
		{"freeze after end", url.Values{"freeze": {inputValue(end.Add(time.Hour))}}, "Freeze must not be after the end", "freeze"},
		{"unfreeze without end", url.Values{"end": {""}, "freeze": {""}}, "Unfreeze at the end needs an end time", "unfreezeAtEnd"},
		{"not a time", url.Values{"start": {"next tuesday"}}, "Start must be a date and time such as 2026-12-01T18:00 (UTC)", "start"},
		{"long name", url.Values{"name": {strings.Repeat("n", ctf.MaxEventNameChars+1)}}, "Name must be at most 128 characters", "name"},
	}
	for _, tc := range refused {
		f := url.Values{}
		for k, v := range form {
			f[k] = v
		}
		for k, v := range tc.change {
			f[k] = v
		}
		p := root.send("/admin/event", f)
		want(t, tc.name, p, 200, `<p class="alert error" role="alert" id="event-error">`+tc.msg, `aria-describedby="event-error"`)
		if tc.change.Get(tc.field) != "" && !strings.Contains(p.body, `value="`+tc.change.Get(tc.field)+`"`) {
			t.Errorf("%s: the typed value is not kept", tc.name)
		}
		if !regexp.MustCompile(`name="` + tc.field + `"[^>]*aria-invalid="true"`).MatchString(p.body) {
			t.Errorf("%s: the field %s is not marked invalid", tc.name, tc.field)
		}
		if got := s.Svc.Event.Current().Event; !reflect.DeepEqual(got, wantEvent) {
			t.Errorf("%s: the event changed to %+v", tc.name, got)
		}
	}
	log, _ := s.Svc.Admin.AuditLog(context.Background(), ctf.Operator, 0, 10)
	if len(log) != 1 || log[0].Action != "event.update" {
		t.Errorf("audit: %+v", log)
	}
}

// TestPlayersCannotRunTheClock: a player's posts to the event's and the
// announcements' admin forms are refused and change nothing.
func TestPlayersCannotRunTheClock(t *testing.T) {
	t.Parallel()
	clk := newTestClock()
	s := apitest.Start(t, adminEvent, apitest.Options{Now: clk.now})
	freeze := clk.now().Add(-time.Hour)
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Freeze: &freeze}); err != nil {
		t.Fatal(err)
	}
	before := s.Svc.Event.Current().Event
	pam := logIn(t, s, "pam")
	for _, path := range []string{"/admin/event", "/admin/announcements"} {
		want(t, "player on "+path, pam.get(path), 403, "Only admins")
	}
	for path, form := range map[string]url.Values{
		"/admin/event":          {"name": {"Pwned"}, "start": {inputValue(clk.now())}},
		"/admin/event/unfreeze": {},
		"/admin/announcements":  {"title": {"Free flags"}, "body": {"no"}},
	} {
		want(t, "player posts "+path, pam.post(path, form), 403)
	}
	want(t, "signed out", newBrowser(t, s).post("/admin/event", url.Values{"name": {"Pwned"}}), http.StatusSeeOther)
	if got := s.Svc.Event.Current().Event; !reflect.DeepEqual(got, before) || !s.Svc.Event.Current().Frozen {
		t.Errorf("a player's form changed the event: %+v", got)
	}
	if n := len(s.Svc.Event.Announcements()); n != 0 {
		t.Errorf("a player posted %d announcements", n)
	}
	if log, _ := s.Svc.Admin.AuditLog(context.Background(), ctf.Operator, 0, 10); len(log) != 1 {
		t.Errorf("refused forms were audited: %+v", log)
	}
}

// TestTheClockAcrossTheWebApp: on a pinned clock, the board counts down
// before the start; during a freeze the scoreboard says so to players and
// tells admins they see the live standings, with the unfreeze button on
// the event page; after the end the board says the event is over (and
// practice mode); the flag form shows the format.
func TestTheClockAcrossTheWebApp(t *testing.T) {
	t.Parallel()
	clk := newTestClock()
	// riddle's flag tells no format: the event's is shown for it.
	s := apitest.Start(t, adminEvent+"  - {slug: riddle, title: Riddle, categories: [misc], points: 50, flags: ['a plain answer']}\n",
		apitest.Options{Now: clk.now})
	start := clk.now().Add(2*time.Hour + 13*time.Minute)
	freeze, end := start.Add(time.Hour), start.Add(3*time.Hour)
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Name: "Winter CTF", Start: &start, End: &end,
		Freeze: &freeze, Practice: true, FlagFormat: "WCTF{...}"}); err != nil {
		t.Fatal(err)
	}
	root, pam, anon := logIn(t, s, "root"), logIn(t, s, "pam"), newBrowser(t, s)

	board := anon.get("/")
	want(t, "before the start", board, 200, "The event starts at", `<time datetime="`+ctf.FormatTime(start)+`" data-local>`,
		" UTC</time>", "in <span data-countdown=\"7980\">2 h 13 min</span>", "The challenges appear when the event starts.",
		"<title>Challenges · Winter CTF</title>")
	want(t, "no challenge before the start", pam.get("/challenges/warmup"), 404)
	clk.add(2*time.Hour + 12*time.Minute + 30*time.Second)
	want(t, "half a minute to go", anon.get("/"), 200, `data-countdown="30">30 s</span>`)

	clk.add(time.Minute) // running
	c := pam.get("/challenges/riddle")
	want(t, "the event's flag format", c, 200, `placeholder="WCTF{...}" aria-describedby="flag-format"`, `<p class="hint" id="flag-format">Flags look like <code>WCTF{...}</code>.</p>`)
	// warmup's flag is flag{…}: its format is derived from it, before the
	// event's (docs/product.md#flag-formats).
	want(t, "a challenge's flag format", pam.get("/challenges/warmup"), 200, `placeholder="flag{...}"`,
		`Flags look like <code>flag{...}</code>.</p>`)
	if strings.Contains(anon.get("/").body, "The event starts at") {
		t.Error("the countdown outlives the start")
	}

	clk.add(time.Hour) // frozen since a minute and a half
	if p := pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}); p.status != 200 {
		t.Fatalf("solve during the freeze: %d", p.status)
	}
	sb := anon.get("/scoreboard")
	want(t, "frozen for players", sb, 200, "Scoreboard frozen since <time datetime=\""+ctf.FormatTime(freeze)+`"`, "No one has solved anything yet.")
	if strings.Contains(sb.body, "live standings") {
		t.Error("a player is told about live standings")
	}
	want(t, "frozen for admins", root.get("/scoreboard"), 200, "Frozen for players since", "you see the live standings")
	ev := root.get("/admin/event")
	want(t, "event page frozen", ev, 200, "Scoreboard frozen since", `action="/admin/event/unfreeze"`, "Unfreeze the scoreboard now")

	after := root.send("/admin/event/unfreeze", url.Values{})
	if s.Svc.Event.Current().Frozen {
		t.Fatal("still frozen")
	}
	want(t, "unfrozen", after, 200, "The scoreboard is unfrozen", "was lifted at")
	if strings.Contains(after.body, "Unfreeze the scoreboard now") {
		t.Error("the unfreeze button outlives the freeze")
	}
	want(t, "unfreeze again", root.send("/admin/event/unfreeze", url.Values{}), 200, `class="alert error"`, "The scoreboard is not frozen")
	sb = anon.get("/scoreboard")
	want(t, "the live board for all", sb, 200, ">pam</a>")
	if strings.Contains(sb.body, "frozen since") {
		t.Error("the frozen notice outlives the freeze")
	}

	clk.add(3 * time.Hour) // over
	want(t, "over", anon.get("/"), 200, "The event is over.", "Practice mode: solves count for nothing public.")
	want(t, "over on the scoreboard", anon.get("/scoreboard"), 200, "The event is over.")
	want(t, "event page over", root.get("/admin/event"), 200, "<strong>Ended</strong>", "Practice mode")
}

// TestChallengeReleaseAt: the editor's "release at" field (UTC) round
// trips; the admin list says "scheduled for"; players get 404 until then;
// a time that does not parse is refused beside the form.
func TestChallengeReleaseAt(t *testing.T) {
	t.Parallel()
	clk := newTestClock()
	s := apitest.Start(t, adminEvent, apitest.Options{Now: clk.now})
	root, pam := logIn(t, s, "root"), logIn(t, s, "pam")
	edit := root.get("/admin/challenges/warmup")
	want(t, "editor", edit, 200, `name="releaseAt"`, "Release at (UTC)")
	id := regexp.MustCompile(`name="id" value="([0-9a-f-]{36})"`).FindStringSubmatch(edit.body)
	if id == nil {
		t.Fatal("no id in the edit form")
	}
	release := clk.now().Add(90 * time.Minute).Truncate(time.Minute)
	fields := map[string]string{"id": id[1], "title": "Warmup", "categories": "misc", "difficulty": "Easy", "points": "50",
		"flagKind0": "static", "flagContent0": "flag{warm}", "author": "evil", "releaseAt": "soon"}
	want(t, "bad time", root.multipartPost("/admin/challenges", fields, "", "", nil), 400, "The release time must be a date and time", `value="soon"`)
	if in, _ := s.Svc.Content.ChallengeForEdit(context.Background(), ctf.Operator, "warmup"); in.ReleaseAt != nil {
		t.Fatal("a refused form set the release")
	}
	fields["releaseAt"] = inputValue(release)
	if r := root.multipartPost("/admin/challenges", fields, "", "", nil); r.status != http.StatusSeeOther {
		t.Fatalf("save: %d\n%.1500s", r.status, r.body)
	}
	if in, _ := s.Svc.Content.ChallengeForEdit(context.Background(), ctf.Operator, "warmup"); in.ReleaseAt == nil || !in.ReleaseAt.Equal(release) {
		t.Fatalf("release at %v, want %v", in.ReleaseAt, release)
	}
	want(t, "round trip", root.get("/admin/challenges/warmup"), 200, `name="releaseAt" value="`+inputValue(release)+`"`)
	want(t, "scheduled", root.get("/admin/challenges"), 200, "Scheduled for <time datetime=\""+ctf.FormatTime(release)+`"`)
	want(t, "pending for players", pam.get("/challenges/warmup"), 404)
	clk.add(91 * time.Minute)
	want(t, "released", pam.get("/challenges/warmup"), 200, "Warmup")
	if strings.Contains(root.get("/admin/challenges").body, "Scheduled for") {
		t.Error("still scheduled after its release")
	}
	// Clearing the field clears the release.
	fields["releaseAt"] = ""
	root.multipartPost("/admin/challenges", fields, "", "", nil)
	if in, _ := s.Svc.Content.ChallengeForEdit(context.Background(), ctf.Operator, "warmup"); in.ReleaseAt != nil {
		t.Errorf("release not cleared: %v", in.ReleaseAt)
	}
}
