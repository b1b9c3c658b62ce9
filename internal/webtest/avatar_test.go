package webtest

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestAvatarFromAnotherSite: an avatar on another site — what the settings
// page says it takes — is not fetched by the browser of someone who looks
// at the profile (it would tell that site who looks, and when): the
// profile shows the initials, linked to the avatar, and the other site
// gets no request.
func TestAvatarFromAnotherSite(t *testing.T) {
	var fetched atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		w.Header().Set("Content-Type", "image/png")
	}))
	t.Cleanup(other.Close)
	avatar := other.URL + "/me.png" // http://127.0.0.1:<another port>: another origin

	s := apitest.Start(t, flowEvent)
	ctx := newBrowser(t)
	step(t, ctx, "log in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login?next=/settings")},
		fill(map[string]string{"username": "reader", "password": "reader-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, "avatar", chromedp.WaitVisible(chromedp.CSS(`input[name=image]`)), chromedp.SendKeys(chromedp.CSS(`input[name=image]`), avatar),
		chromedp.Click(chromedp.CSS(`form[action="/settings/profile"] button`)), contains(".alert.notice", "Profile saved"))
	// Navigate returns once the page has loaded, images included.
	step(t, ctx, "profile", chromedp.Navigate(s.URL+"/me"), chromedp.WaitVisible(chromedp.CSS("a.avatar.initials")))
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("a.avatar.initials").href`))
	if err != nil {
		t.Fatal(err)
	}
	if href != avatar {
		t.Errorf("the initials link to %q, want %q", href, avatar)
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("the browser fetched the avatar from the other site %d times", n)
	}
}
