package webtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// chromium finds Debian's Chromium; the tests skip without it (and a skip
// fails CI, which installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("FLAGSHIP_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if _, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	t.Skip("browser tests need Chromium: apt-get install chromium (or set FLAGSHIP_CHROMIUM)")
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile for the test
// and returns a tab's context, closed at the test's end.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelC(); cancelA() })
	// The first action on the tab's own context starts the browser.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// step runs actions with a time limit, failing the test with label.
func step(t *testing.T, ctx context.Context, label string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, actions...); err != nil {
		t.Fatalf("%s: %v", label, err)
	}
}

// text returns the text of the first element sel selects.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	s, err := chromedp.Run(tctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// screenshot saves the page to docs/screenshots when FLAGSHIP_SCREENSHOTS
// is set (the README shows them), else to the test's temporary directory.
func screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	dir := os.Getenv("FLAGSHIP_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	buf, err := chromedp.Run(tctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// contains waits until the text of the first element sel selects
// contains want: after a form, so that the next step acts on the new page.
// atURL waits until the tab's address holds part: a form's answer has
// replaced the page (the page before may already hold what contains looks
// for).
func atURL(part string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`location.href.includes(%q) && document.readyState === "complete"`, part)
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			if ok, err := chromedp.Evaluate[bool](js)(ctx, t); err == nil && ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for an address holding %q: %w", part, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

func contains(sel, want string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.textContent.includes(%q); })()`, sel, want)
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		// Evaluated again and again rather than polled in the page: the
		// form's navigation replaces the page under a poll.
		for {
			if ok, err := chromedp.Evaluate[bool](js)(ctx, t); err == nil && ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for %q in %s: %w", want, sel, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// chooseTheme switches the page to theme with its theme switch, whichever
// theme it shows now (the button for the theme shown is hidden: clicked
// by script), and waits for it. app.js sets the cookie; nothing is posted.
func chooseTheme(theme string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector('form.theme-switch button[value=%q]').click()`, theme)),
		chromedp.WaitVisible(chromedp.CSS(`html[data-theme="`+theme+`"] main`)))
}

// prefersColorScheme makes the tab's system theme scheme (light or dark),
// as CSS's prefers-color-scheme and matchMedia see it.
func prefersColorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// sideways fails the test when the page is wider than the 390 px screen.
func sideways(t *testing.T, ctx context.Context, label string) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	width, err := chromedp.Run(tctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if err != nil {
		t.Fatal(err)
	}
	if width > 390 {
		t.Errorf("%s is %d px wide on a 390 px screen: it scrolls sideways", label, width)
	}
}

// loggedIn is a new browser logged in to the site at base as username
// (whose password is username-password), through the log-in form.
func loggedIn(t *testing.T, base, username string) context.Context {
	t.Helper()
	ctx := newBrowser(t)
	step(t, ctx, username+" logs in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/login")},
		fill(map[string]string{"username": username, "password": username + "-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, username+" is signed in", chromedp.WaitVisible(chromedp.CSS("a.who")))
	return ctx
}
