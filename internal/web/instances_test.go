package web_test

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/instances"
	"github.com/flagshipctf/flagship/internal/instances/instancestest"
	"github.com/flagshipctf/flagship/internal/platform"
)

// instanceEvent is adminEvent with two challenges of per-player instances.
var instanceEvent = adminEvent + `
  - {slug: pwnme, title: Pwn Me, categories: [pwn], difficulty: Easy, points: 100,
     instance: {image: ` + instancestest.Image + `, port: 1337, memory: 32MiB, pids: 32}}
  - {slug: pwnme-too, title: Pwn Me Too, categories: [pwn], difficulty: Easy, points: 100,
     instance: {image: ` + instancestest.Image + `, port: 1337, memory: 32MiB, pids: 32}}
`

// TestInstancesFromTheChallengePage: a player starts their instance from
// the challenge's page, reads the connection line, reaches the instance
// on 127.0.0.1 and reads their own flag, which solves the challenge
// through the page's form; extends and stops it (the container is gone).
// A second instance is over the player's limit (409, on the page); another
// player's flag is refused and shows in the admins' sharing report; the
// admin page lists an instance and stops it (audited). Signed out, or on
// a challenge without instances, there is no panel.
func TestInstancesFromTheChallengePage(t *testing.T) {
	engine := apitest.InstanceEngines(t)[0].Engine
	from, to := instancestest.FreePorts(t, 4)
	s := apitest.Start(t, instanceEvent, apitest.Options{Instances: platform.InstanceOptions{Engine: engine, EngineName: "docker",
		Host: "127.0.0.1", PortFrom: from, PortTo: to, PerPlayer: 1, Max: 4}})
	apitest.StopInstancesAtEnd(t, s.Svc)
	anon, pam, evil, root := newBrowser(t, s), logIn(t, s, "pam"), logIn(t, s, "evil"), logIn(t, s, "root")

	if p := anon.get("/challenges/pwnme"); p.status != 200 || strings.Contains(p.body, "Your instance") {
		t.Errorf("signed out: %d, a panel: %v", p.status, strings.Contains(p.body, "Your instance"))
	}
	want(t, "signed-out start", anon.post("/challenges/pwnme/instance", url.Values{}), http.StatusSeeOther)
	if p := pam.get("/challenges/warmup"); strings.Contains(p.body, "Your instance") {
		t.Error("a challenge without instances shows a panel")
	}
	want(t, "before a start", pam.get("/challenges/pwnme"), 200, `id="instance"`, `action="/challenges/pwnme/instance"`, "Start an instance")

	started := pam.post("/challenges/pwnme/instance", url.Values{})
	if started.status != http.StatusSeeOther || started.header.Get("Location") != "/challenges/pwnme?done=started#instance" {
		t.Fatalf("start: %d %v\n%.2000s", started.status, started.header, started.body)
	}
	page := pam.get("/challenges/pwnme?done=started")
	want(t, "running", page, 200, "Your instance runs.", `<span class="status running">running</span>`, "<time datetime=",
		"data-countdown=", `action="/challenges/pwnme/instance/extend"`, `action="/challenges/pwnme/instance/stop"`)
	m := regexp.MustCompile(`<code id="instance-conn">nc 127\.0\.0\.1 (\d+)</code>`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatalf("no connection line:\n%s", page.body)
	}
	port, _ := strconv.Atoi(m[1])
	if port < from || port > to {
		t.Errorf("port %d outside %d-%d", port, from, to)
	}
	flag := instancestest.Greeting(t, port)

	// The limit of one per player: refused on the page, nothing started.
	want(t, "a second instance", pam.send("/challenges/pwnme-too/instance", url.Values{}), 200,
		`class="alert error"`, "Start an instance")

	// Another player's flag is wrong, and admins see it as sharing.
	want(t, "evil submits pam's flag", evil.send("/challenges/pwnme/submit", url.Values{"flag": {flag}}), 200, "Wrong flag.")
	want(t, "pam submits hers", pam.send("/challenges/pwnme/submit", url.Values{"flag": {flag}}), 200, "Correct!")
	sharing := root.get("/admin/instances")
	want(t, "the sharing report", sharing, 200, "Suspected sharing", `href="/admin/instances">Instances</a>`)
	if !regexp.MustCompile(`(?s)<tr><td><time[^>]*>[^<]*</time></td><td><a href="/challenges/pwnme">pwnme</a></td><td>evil</td><td>pam</td><td>web</td></tr>`).MatchString(sharing.body) {
		t.Errorf("no sharing row for evil with pam's flag:\n%s", sharing.body)
	}

	expiry := func() time.Time {
		t.Helper()
		rows, err := s.Svc.Instances.Running(t.Context(), ctf.Operator)
		if err != nil || len(rows) != 1 {
			t.Fatalf("running: %+v, %v", rows, err)
		}
		return rows[0].ExpiresAt
	}
	before := expiry()
	extended := pam.post("/challenges/pwnme/instance/extend", url.Values{})
	if extended.status != http.StatusSeeOther || !strings.Contains(extended.header.Get("Location"), "done=extended") {
		t.Fatalf("extend: %d %v", extended.status, extended.header)
	}
	want(t, "extended", pam.get("/challenges/pwnme?done=extended"), 200, "Your instance runs longer.")
	if after := expiry(); !after.After(before) {
		t.Errorf("the expiry did not move: %v then %v", before, after)
	}

	rows, _ := s.Svc.Instances.Running(t.Context(), ctf.Operator)
	if len(rows) != 1 {
		t.Fatalf("running: %+v", rows)
	}
	pamID := rows[0].ID
	stopped := pam.post("/challenges/pwnme/instance/stop", url.Values{})
	if stopped.status != http.StatusSeeOther || !strings.Contains(stopped.header.Get("Location"), "done=stopped") {
		t.Fatalf("stop: %d %v", stopped.status, stopped.header)
	}
	want(t, "stopped", pam.get("/challenges/pwnme?done=stopped"), 200, "Your instance is stopped.", "Start an instance")
	if _, err := engine.Inspect(t.Context(), pamID); err == nil {
		t.Error("pam's container still runs after the stop")
	}
	want(t, "extend with none", pam.send("/challenges/pwnme/instance/extend", url.Values{}), 200, "No instance of yours")

	// The admin page lists evil's instance and stops it.
	want(t, "evil starts", evil.post("/challenges/pwnme/instance", url.Values{}), http.StatusSeeOther)
	rows, _ = s.Svc.Instances.Running(t.Context(), ctf.Operator)
	if len(rows) != 1 {
		t.Fatalf("running: %+v", rows)
	}
	list := root.get("/admin/instances")
	want(t, "the admin list", list, 200, "<td>evil</td>", `<a href="/challenges/pwnme">pwnme</a>`, rows[0].EngineID,
		fmt.Sprintf("127.0.0.1:%d", rows[0].Port), `name="id" value="`+rows[0].ID+`"`)
	want(t, "a player on the admin page", evil.get("/admin/instances"), http.StatusForbidden)
	want(t, "a player stops by id", evil.post("/admin/instances/stop", url.Values{"id": {rows[0].ID}}), http.StatusForbidden)
	want(t, "after the admin's stop", root.send("/admin/instances/stop", url.Values{"id": {rows[0].ID}}), 200, "The instance is stopped.", "No instance runs.")
	want(t, "a stopped one again", root.send("/admin/instances/stop", url.Values{"id": {rows[0].ID}}), 200, `class="alert error"`, "No instance")
	// The entry names the instance by its challenge and player, not its id.
	audit := root.get("/admin/audit")
	want(t, "the audit log", audit, 200, `<code class="nowrap">instance.stop</code>`, "an instance of Pwn Me for evil")
	if strings.Contains(audit.body, rows[0].ID) {
		t.Error("the audit log names the instance by its id")
	}
}

// TestInstanceEngineDown: with an engine that does not answer, a start is
// refused on the page as the server being busy (503 with Retry-After),
// and nothing is left reserved.
func TestInstanceEngineDown(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	engine, err := instances.NewDocker(instances.Options{Host: "tcp://" + dead})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })
	s := apitest.Start(t, instanceEvent, apitest.Options{Instances: platform.InstanceOptions{Engine: engine, EngineName: "docker", Host: "127.0.0.1"}})
	pam := logIn(t, s, "pam")
	p := pam.send("/challenges/pwnme/instance", url.Values{})
	want(t, "start", p, 200, `class="alert error"`, "does not answer", "Start an instance")
	if p.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	if rows, err := s.Svc.Instances.Running(t.Context(), ctf.Operator); err != nil || len(rows) != 0 {
		t.Errorf("left behind: %+v, %v", rows, err)
	}
}
