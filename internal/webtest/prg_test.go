package webtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/pquerna/otp/totp"
)

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// TestFormsAsAPersonDoes (issue 20, fixes 1, 2, 5, 7): a flag sent without
// the script lands on the challenge's page, whose theme switch works and
// whose reload sends nothing again; a new key shows once, at the top; a
// mistyped 2FA code keeps the secret and the QR code; "Rate" without a
// choice rates nothing. Axe checks each page these land on.
func TestFormsAsAPersonDoes(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, flowEvent)
	ctx := newBrowser(t)
	step(t, ctx, "log in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login?next=/challenges/crypto-one")},
		fill(map[string]string{"username": "reader", "password": "reader-password"}, `form[action="/login"] button[type=submit]`)...)...)

	// HTMLFormElement.submit() skips app.js's submit handler: the post a
	// browser without JavaScript makes.
	step(t, ctx, "a wrong flag without the script", chromedp.WaitVisible(chromedp.CSS("#flag")), chromedp.SendKeys(chromedp.CSS("#flag"), "flag{nope}"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("form[data-submit]").submit()`), contains(".alert.error", "Wrong flag."))
	if p := eval[string](t, ctx, `location.pathname`); p != "/challenges/crypto-one" {
		t.Errorf("the flag form landed on %s", p)
	}
	if v := eval[string](t, ctx, `document.querySelector("#flag").value`); v != "flag{nope}" {
		t.Errorf("the refused flag is not kept: %q", v)
	}
	axeCheck(t, ctx, axe, "a challenge after a wrong flag")
	attempts := text(t, ctx, "p.meta")
	step(t, ctx, "a reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#flag")))
	if eval[bool](t, ctx, `!!document.querySelector(".alert.error")`) {
		t.Error("the wrong flag's message shows again after a reload")
	}
	if got := text(t, ctx, "p.meta"); got != attempts {
		t.Errorf("a reload changed the attempts: %q, then %q", attempts, got)
	}
	// The switch without the script: the form posts (naming no theme, it
	// flips the dark one shown before any choice) and lands back here.
	step(t, ctx, "the theme switch", chromedp.Evaluate[chromedp.Void](`document.querySelector("form.theme-switch").submit()`),
		chromedp.WaitVisible(chromedp.CSS(`html[data-theme="light"]`)), chromedp.WaitVisible(chromedp.CSS("#flag")))

	step(t, ctx, "a read-only key", chromedp.Navigate(s.URL+"/settings"), chromedp.SendKeys(chromedp.CSS("#keyname"), "reader"),
		chromedp.Click(chromedp.CSS(`input[name=readonly]`)), chromedp.Click(chromedp.CSS(`form[action="/settings/keys"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#newkey")))
	if top := eval[float64](t, ctx, `document.querySelector("#newkey").getBoundingClientRect().top`); top > 600 {
		t.Errorf("the new key is %v px down the page it lands on", top)
	}
	if !strings.Contains(text(t, ctx, "#keys table"), "read-only") {
		t.Error("the key list does not mark the read-only key")
	}
	// Times in the viewer's zone, the UTC text kept as the title (fix 4).
	if got := eval[string](t, ctx, `(() => { const e = document.querySelector("#keys time[data-local]");
		return e && /UTC$/.test(e.title) && /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d(:\d\d)? \S+$/.test(e.textContent) ? "ok" : e ? e.title + " | " + e.textContent : "none"; })()`); got != "ok" {
		t.Errorf("a key's time reads %q", got)
	}
	screenshot(t, ctx, "settings-new-key")
	axeCheck(t, ctx, axe, "settings with a new key")
	step(t, ctx, "a reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#keys")))
	if eval[bool](t, ctx, `!!document.querySelector("#newkey")`) || eval[int](t, ctx, `document.querySelectorAll("#keys tbody tr").length`) != 1 {
		t.Error("a reload shows the key again or makes another")
	}

	step(t, ctx, "2FA set-up", chromedp.Click(chromedp.CSS(`form[action="/settings/2fa/begin"] button`)), chromedp.WaitVisible(chromedp.CSS("img.qr")))
	secret := text(t, ctx, "#secret")
	step(t, ctx, "a mistyped code", chromedp.SendKeys(chromedp.CSS("#code-confirm"), "000000"),
		chromedp.Click(chromedp.CSS(`form[action="/settings/2fa/confirm"] button`)), contains(".alert.error", "Code is wrong"),
		chromedp.WaitVisible(chromedp.CSS("img.qr")))
	if got := text(t, ctx, "#secret"); got != secret {
		t.Fatalf("the secret changed after a mistyped code: %q, then %q", secret, got)
	}
	screenshot(t, ctx, "settings-2fa-mistyped")
	axeCheck(t, ctx, axe, "the 2FA set-up after a mistyped code")
	code, _ := totp.GenerateCode(secret, time.Now())
	step(t, ctx, "the right code", chromedp.SendKeys(chromedp.CSS("#code-confirm"), code),
		chromedp.Click(chromedp.CSS(`form[action="/settings/2fa/confirm"] button`)), chromedp.WaitVisible(chromedp.CSS("#recovery")))

	// reader solved warmup: its rating form starts empty.
	step(t, ctx, "the rating form", chromedp.Navigate(s.URL+"/challenges/warmup"), chromedp.WaitVisible(chromedp.CSS(`form[action$="/review"]`)))
	if v := eval[string](t, ctx, `document.querySelector("select[name=stars]").value`); v != "" {
		t.Errorf("the stars start at %q", v)
	}
	step(t, ctx, "Rate without choosing", chromedp.Click(chromedp.CSS(`form[action$="/review"] button`)))
	time.Sleep(300 * time.Millisecond)
	if !eval[bool](t, ctx, `document.querySelector("select[name=stars]").validity.valueMissing`) ||
		eval[bool](t, ctx, `!!document.querySelector(".alert.notice")`) {
		t.Error("Rate without a choice was sent")
	}
	axeCheck(t, ctx, axe, "a solved challenge's rating form")
	step(t, ctx, "rate", chromedp.SetValue(chromedp.CSS(`select[name=stars]`), "4"), chromedp.SetValue(chromedp.CSS(`select[name=difficulty]`), "2"),
		chromedp.Click(chromedp.CSS(`form[action$="/review"] button`)), contains(".alert.notice", "rating is saved"))
	if got := eval[string](t, ctx, `document.querySelector("p.meta").textContent`); !strings.Contains(got, "Rating: 4.0") {
		t.Errorf("the rating is not shown: %q", got)
	}
}

// TestLogInAndSignUpAsAPersonDoes (issue 20, fix 1): a wrong password
// lands on the log-in page (next kept, the username typed kept, the
// password not), whose reload shows no error and whose theme switch works;
// a refused sign-up lands on its form the same way. Axe checks both.
func TestLogInAndSignUpAsAPersonDoes(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, flowEvent)
	ctx := newBrowser(t)
	step(t, ctx, "a wrong password", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login?next=/scoreboard")},
		fill(map[string]string{"username": "reader", "password": "not the password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, "the refusal", contains(".alert.error", "Wrong username or password"))
	if got := eval[string](t, ctx, `location.pathname + location.search`); got != "/login?next=%2Fscoreboard" {
		t.Errorf("the refusal landed on %s", got)
	}
	if got := eval[string](t, ctx, `document.querySelector("[name=username]").value + "|" + document.querySelector("[name=password]").value`); got != "reader|" {
		t.Errorf("the form after the refusal holds %q, want the username only", got)
	}
	axeCheck(t, ctx, axe, "the log-in page after a wrong password")
	step(t, ctx, "a reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`form[action="/login"]`)))
	if eval[bool](t, ctx, `!!document.querySelector(".alert.error")`) {
		t.Error("the refusal shows again after a reload")
	}
	step(t, ctx, "the theme switch", chooseTheme("light"), chromedp.WaitVisible(chromedp.CSS(`html[data-theme="light"] form[action="/login"]`)))
	step(t, ctx, "the right password", fill(map[string]string{"username": "reader", "password": "reader-password"}, `form[action="/login"] button[type=submit]`)...)
	step(t, ctx, "lands on next", atURL("/scoreboard"), chromedp.WaitVisible(chromedp.CSS("a.who")))

	other := newBrowser(t)
	step(t, other, "a refused sign-up", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/signup")},
		fill(map[string]string{"username": "reader", "email": "new@example.com", "password": "long enough", "password2": "long enough"},
			`form[action="/signup"] button[type=submit]`)...)...)
	step(t, other, "the refusal", contains(".alert.error", "already taken"))
	if got := eval[string](t, other, `location.pathname + "|" + document.querySelector("[name=email]").value + "|" + document.querySelector("[name=password]").value`); got != "/signup|new@example.com|" {
		t.Errorf("the sign-up after the refusal: %q", got)
	}
	axeCheck(t, other, axe, "the sign-up page after a refusal")
}
