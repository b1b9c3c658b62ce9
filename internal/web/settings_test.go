package web_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/pquerna/otp/totp"
)

// imgSrcAllows reports whether the img-src directive of csp lets a page of
// origin load the image at raw (scheme sources, 'self' and *: what the
// policy uses).
func imgSrcAllows(csp, origin, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		if len(f) == 0 || f[0] != "img-src" {
			continue
		}
		for _, src := range f[1:] {
			switch {
			case src == "'self'" && u.Scheme+"://"+u.Host == origin:
				return true
			case src == "*" && (u.Scheme == "http" || u.Scheme == "https"):
				return true
			case src == u.Scheme+":":
				return true
			}
		}
	}
	return false
}

// TestAvatarHintRuleAndPolicyAgree: the settings page says what the avatar
// rule accepts (http or https) and what the pages show of it; the rule
// refuses the rest with its message; the API gives the avatar as saved,
// while the profile page loads no image of another site (which would tell
// that site who looks at the profile): it shows the initials, linked to
// the avatar. Every image a page shows is one its Content-Security-Policy
// lets the browser load.
func TestAvatarHintRuleAndPolicyAgree(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	settings := b.get("/settings")
	want(t, "settings", settings, 200, "Avatar URL <span class=\"hint\">an http or https link to an image, optional;", "initials")
	if strings.Contains(settings.body, "https only") {
		t.Error("the settings page still says https only")
	}
	id := mustUser(t, s, "pam")
	profilePath := "/users/" + id
	for _, tc := range []struct {
		image  string
		status int
		msg    string
	}{
		{"http://avatars.example/pam.png", 200, "Profile saved"},
		{"https://avatars.example/pam.png", 200, "Profile saved"},
		{"javascript:alert(1)", 200, "Image must be an http or https URL"},
		{"data:image/png;base64,iVBORw0KGgo=", 200, "Image must be an http or https URL"},
		{"ftp://avatars.example/pam.png", 200, "Image must be an http or https URL"},
		{"//avatars.example/pam.png", 200, "Image must be an http or https URL"},
	} {
		want(t, tc.image, b.send("/settings/profile", url.Values{"name": {"Pam Beesly"}, "image": {tc.image}}), tc.status, tc.msg)
		if tc.msg != "Profile saved" {
			continue
		}
		p := b.get(profilePath)
		want(t, "profile with "+tc.image, p, 200, `<a class="avatar initials" href="`+tc.image+`"`, `>PB</a>`)
		csp := p.header.Get("Content-Security-Policy")
		for _, m := range regexp.MustCompile(`<img[^>]*\bsrc="([^"]*)"`).FindAllStringSubmatch(p.body, -1) {
			if src := html.UnescapeString(m[1]); !imgSrcAllows(csp, s.URL, s.URL+src) && !imgSrcAllows(csp, s.URL, src) {
				t.Errorf("the profile shows the image %s, which its policy blocks: %s", src, csp)
			}
		}
		api := b.get("/api/public/profiles/" + id)
		want(t, "API profile", api, 200, `"image":"`+tc.image+`"`)
	}
	// The refused ones left the last accepted avatar in place.
	want(t, "kept", b.get(profilePath), 200, `href="https://avatars.example/pam.png"`)
	if regexp.MustCompile(`(src|href)="(javascript|data|ftp):`).MatchString(b.get(profilePath).body) {
		t.Error("a refused avatar reached the profile")
	}
	// No avatar: the initials alone.
	want(t, "no avatar", b.send("/settings/profile", url.Values{"name": {""}, "image": {""}}), 200, "Profile saved")
	want(t, "profile without avatar", b.get(profilePath), 200, `<span class="avatar initials" aria-hidden="true">P</span>`)
}

// TestDisableTwoFactor: 2FA is turned off with the password and a code
// from the app or a recovery code, never with a wrong or spent one; once
// off, the password alone logs in again.
func TestDisableTwoFactor(t *testing.T) {
	t.Parallel()
	for _, with := range []string{"a code from the app", "a recovery code"} {
		t.Run(with, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			var skew atomic.Int64 // moved to reach the next 30-second step: a code is good once
			now := func() time.Time { return start.Add(time.Duration(skew.Load())) }
			s := apitest.Start(t, event, apitest.Options{Now: now})
			b := newBrowser(t, s)
			b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
			begin := b.send("/settings/2fa/begin", url.Values{})
			secret := regexp.MustCompile(`<code id="secret">([A-Z2-7]+)</code>`).FindStringSubmatch(begin.body)
			if secret == nil {
				t.Fatalf("no secret on the page:\n%.2000s", begin.body)
			}
			used, _ := totp.GenerateCode(secret[1], now())
			on := b.send("/settings/2fa/confirm", url.Values{"code": {used}})
			want(t, "2FA on", on, 200, "Two-factor authentication is on")
			recovery := regexp.MustCompile(`(?m)^([a-z2-9]{5}-[a-z2-9]{5})$`).FindAllString(on.body, -1)
			if len(recovery) != 10 {
				t.Fatalf("%d recovery codes", len(recovery))
			}
			want(t, "settings with 2FA", b.get("/settings"), 200, "On. 10 recovery codes left.", `action="/settings/2fa/disable"`)

			for _, bad := range []string{"000000", used, "nope-nope"} {
				want(t, "turn off with "+bad, b.send("/settings/2fa/disable", url.Values{"password": {"pam-password"}, "code": {bad}}), 200, "Wrong password or code", "On. 10 recovery codes left.")
			}
			skew.Add(int64(31 * time.Second))
			code := recovery[3]
			if with == "a code from the app" {
				code, _ = totp.GenerateCode(secret[1], now())
			}
			want(t, "turn off", b.send("/settings/2fa/disable", url.Values{"password": {"pam-password"}, "code": {code}}), 200, "Two-factor authentication is off.",
				"Off. With it on", `action="/settings/2fa/begin"`)
			if p := newBrowser(t, s).post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}}); p.status != http.StatusSeeOther {
				t.Fatalf("the password alone after 2FA is off: %d\n%.1000s", p.status, p.body)
			}
			if me := b.get("/api/public/me"); !strings.Contains(me.body, `"twoFactorEnabled":false`) {
				t.Errorf("the API says %s", me.body)
			}
		})
	}
}

// TestRevokeOneSession: "Log out" on one row of the sessions table ends
// that session only; the current one and the others go on, and another
// user cannot end a session that is not theirs.
func TestRevokeOneSession(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	login := func(username, device string) *browser {
		b := newBrowser(t, s)
		p := b.do("POST", "/login", url.Values{"username": {username}, "password": {username + "-password"}}, "User-Agent: "+device)
		if p.status != http.StatusSeeOther {
			t.Fatalf("log in on %s: %d", device, p.status)
		}
		return b
	}
	here, phone, tablet := login("pam", "pam-laptop"), login("pam", "pam-phone"), login("pam", "pam-tablet")
	evil := login("evil", "evil-laptop")
	row := func(device string) string {
		t.Helper()
		m := regexp.MustCompile(`<td>` + device + `</td>\s*<td><time datetime="[^"]+" data-local>[^<]+</time></td><td><time datetime="[^"]+" data-local>[^<]+</time></td>\s*<td><form method="post" action="/settings/sessions/revoke"><input type="hidden" name="id" value="([0-9a-f]+)">`).
			FindStringSubmatch(here.get("/settings").body)
		if m == nil {
			t.Fatalf("no row with a Log out button for %s", device)
		}
		return m[1]
	}
	phoneID := row("pam-phone")
	row("pam-tablet")
	if strings.Count(here.get("/settings").body, `action="/settings/sessions/revoke"`) != 2 {
		t.Error("want a Log out button on the two other sessions, none on this one")
	}
	want(t, "this session is marked", here.get("/settings"), 200, "(this one)")

	// Another user sends pam's session id: nothing ends.
	evil.send("/settings/sessions/revoke", url.Values{"id": {phoneID}})
	want(t, "pam's phone after evil's try", phone.get("/settings"), 200, "pam-phone")

	want(t, "log out the phone", here.send("/settings/sessions/revoke", url.Values{"id": {phoneID}}), 200, "Session ended.")
	if p := phone.get("/settings"); p.status != http.StatusSeeOther {
		t.Errorf("the ended session still reaches settings: %d", p.status)
	}
	if strings.Contains(phone.get("/").body, `class="who"`) {
		t.Error("the ended session still reads as signed in")
	}
	for name, b := range map[string]*browser{"this session": here, "the tablet": tablet} {
		want(t, name+" goes on", b.get("/settings"), 200, "Sessions")
	}
	after := here.get("/settings").body
	if strings.Contains(after, "pam-phone") || !strings.Contains(after, "pam-tablet") {
		t.Error("the sessions table does not show the phone gone and the tablet kept")
	}
}
