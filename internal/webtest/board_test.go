package webtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
)

// boardEvent has a dozen challenges (eight in web, one of them in crypto
// too; one named with a space), tags, and ten players with solves for the
// scoreboard's graph.
func boardEvent() string {
	var y strings.Builder
	y.WriteString("users:\n  - {username: root, email: root@example.com, password: root-password, role: admin}\n")
	for i := range 10 {
		fmt.Fprintf(&y, "  - {username: player-with-a-long-name-%02d, email: p%02d@example.com, password: p%02d-password}\n", i, i, i)
	}
	y.WriteString("challenges:\n")
	y.WriteString("  - {slug: padding-oracle, title: Padding Oracle, categories: [crypto, web], points: 300, flags: [f], tags: [aes, http]}\n")
	y.WriteString("  - {slug: baby-rsa, title: Baby RSA, categories: [crypto], points: 100, flags: [f], tags: [rsa, math]}\n")
	for i := range 7 {
		fmt.Fprintf(&y, "  - {slug: web-%d, title: Web Page %d, categories: [web], points: %d, flags: [f], tags: [http]}\n", i, i, 100+10*i)
	}
	y.WriteString("  - {slug: sanity, title: Sanity Check, categories: [warm up], points: 10, flags: [f]}\n")
	y.WriteString("  - {slug: strings, title: Strings, categories: [rev], points: 50, flags: [f], tags: [easy-ish]}\n")
	y.WriteString("  - {slug: heap, title: Heap Feng Shui, categories: [pwn], points: 500, flags: [f]}\n")
	y.WriteString("solves:\n")
	start := time.Now().UTC().Add(-5 * time.Hour)
	for i := range 10 {
		for j := 0; j <= i%5; j++ {
			fmt.Fprintf(&y, "  - {user: player-with-a-long-name-%02d, challenge: web-%d, at: %s}\n", i, j,
				start.Add(time.Duration(i*7+j*30)*time.Minute).Format(time.RFC3339))
		}
	}
	return y.String()
}

// toTheme switches the tab's page to theme with the top bar's switch.
func toTheme(t *testing.T, ctx context.Context, theme string) {
	t.Helper()
	step(t, ctx, theme+" theme", chooseTheme(theme))
}

// TestBoardWidthSearchAndTags (issue 20, fix 15): on a desktop screen the
// board uses its width (more cards a row than the text column held); the
// search box and the tag boxes filter as one types (the address keeping
// the filters), the plain form does the same, an empty result says so; and
// at a phone's width the filtered board is axe-clean in both themes.
func TestBoardWidthSearchAndTags(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, boardEvent())
	ctx := newBrowser(t)
	step(t, ctx, "desktop", chromedp.EmulateViewport(1400, 900), chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".cards")))
	// The web section's cards: how many share the first one's row.
	perRow := eval[int](t, ctx, `(() => {
		const cards = [...document.querySelectorAll("section.category")].find(s => s.querySelector("h2").textContent === "web").querySelectorAll("li.card");
		return [...cards].filter(c => c.getBoundingClientRect().top === cards[0].getBoundingClientRect().top).length; })()`)
	if perRow < 5 {
		t.Errorf("%d cards a row at 1400 px, want 5 or more (the 72rem column held 4)", perRow)
	}
	screenshot(t, ctx, "board-1400")
	axeCheck(t, ctx, axe, "the board at 1400 px")
	if n := eval[int](t, ctx, `document.querySelectorAll('a[href="/challenges/padding-oracle"]').length`); n != 2 {
		t.Errorf("Padding Oracle is on the board %d times, want 2 (crypto and web)", n)
	}

	// Typing filters (with the script, at once); the address keeps it.
	step(t, ctx, "search", chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "ORACLE"), atURL("q=ORACLE"),
		contains("p.shown", "Shown: 1 of 12 challenges."))
	if got := eval[string](t, ctx, `[...document.querySelectorAll("li.card .title")].map(e => e.textContent).join(",")`); got != "Padding Oracle,Padding Oracle" {
		t.Errorf("searching ORACLE shows %q", got)
	}
	// A tag box: the search and the tag combine, then nothing matches.
	step(t, ctx, "clear the search", chromedp.Evaluate[chromedp.Void](`document.querySelector("input[name=q]").value = ""`),
		chromedp.Click(chromedp.CSS(`input[name=tag][value=rsa]`)), atURL("?tag=rsa"), contains("ul.cards", "Baby RSA"))
	// (The count read the same for the search: the cards tell the pages apart.)
	if got := eval[string](t, ctx, `[...document.querySelectorAll("li.card")].map(e => e.innerText.replace(/\s+/g, " ")).join(",") + "|" + document.querySelector("p.shown").textContent`); got != "Baby RSA Medium · 100 pts · 0 solves · Rating: unrated Tags: rsa math|Shown: 1 of 12 challenges. Clear" {
		t.Errorf("the rsa tag shows %q", got)
	}
	step(t, ctx, "and a search", chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "heap"), atURL("q=heap"),
		contains("main [data-live]:not(.summary)", "No challenge matches."))
	screenshot(t, ctx, "board-nothing")

	// Without waiting for the script: the form's GET, and a reload, keep
	// the filters.
	step(t, ctx, "the plain form", chromedp.Navigate(s.URL+"/?tag=http&q=page+1"), chromedp.WaitVisible(chromedp.CSS(".cards")))
	if got := text(t, ctx, "p.shown"); got != "Shown: 1 of 12 challenges. Clear" {
		t.Errorf("the tag http and \"page 1\": %q", got)
	}
	step(t, ctx, "submit it", chromedp.Click(chromedp.CSS(`input[name=tag][value=aes]`)), atURL("tag=aes"),
		chromedp.Click(chromedp.CSS(`form.filters button[type=submit]`)), atURL("?q=page+1&category=&difficulty=&tag=aes&tag=http"), chromedp.WaitVisible(chromedp.CSS(".cards")))
	if v := eval[string](t, ctx, `document.querySelector("input[name=q]").value + "|" + [...document.querySelectorAll("input[name=tag]:checked")].map(e => e.value).join(",")`); v != "page 1|aes,http" {
		t.Errorf("after the form, the filters read %q", v)
	}

	step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)), chromedp.Navigate(s.URL+"/?tag=http&q=web"),
		chromedp.WaitVisible(chromedp.CSS(".cards")))
	onAPhone(t, ctx, axe, "board", nil)
}

// onAPhone checks the page the tab shows at 390 px in both themes: it does
// not scroll sideways, and axe finds nothing; check (when not nil) checks
// more in each theme. It saves a screenshot of each.
func onAPhone(t *testing.T, ctx context.Context, axe, name string, check func(theme string)) {
	t.Helper()
	for _, theme := range []string{"dark", "light"} {
		toTheme(t, ctx, theme)
		if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("%s (%s theme) is %d px wide on a 390 px screen", name, theme, w)
		}
		if check != nil {
			check(theme)
		}
		axeCheck(t, ctx, axe, name+", "+theme+" theme")
		screenshot(t, ctx, name+"-phone-"+theme)
	}
}

// TestScoreboardGraphOnAPhone (issue 20, fix 12): at 390 px the scoreboard
// does not scroll sideways, the graph's axis labels and legend are at
// least 11 px and at least 8 px apart (at 320 px too), and the page is
// axe-clean in both themes.
func TestScoreboardGraphOnAPhone(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, boardEvent())
	ctx := newBrowser(t)
	step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)), chromedp.Navigate(s.URL+"/scoreboard"),
		chromedp.WaitVisible(chromedp.CSS("svg.graph polyline")))
	// labels checks every label shown: its size on screen, its box inside
	// the screen, and no two boxes of one axis closer than 8 px side by
	// side.
	labels := func(label string, width int) {
		t.Helper()
		bad := eval[string](t, ctx, fmt.Sprintf(`(() => {
			const out = [];
			for (const sel of [".graph-x li", ".graph-y li", ".legend li"]) {
				const shown = [...document.querySelectorAll(sel)].filter(e => e.getClientRects().length);
				if (shown.length < 2) out.push(sel + ": " + shown.length + " shown");
				const boxes = shown.map(e => e.getBoundingClientRect());
				shown.forEach((e, i) => {
					const px = parseFloat(getComputedStyle(e).fontSize), b = boxes[i];
					if (px < 11) out.push(sel + " " + e.textContent + ": " + px + " px");
					if (b.left < 0 || b.right > %d) out.push(sel + " " + e.textContent + " leaves the screen");
					boxes.slice(0, i).forEach((c, j) => {
						if (b.left < c.right + 8 && c.left < b.right + 8 && b.top < c.bottom && c.top < b.bottom) out.push(sel + ": " + e.textContent + " overlaps " + shown[j].textContent);
					});
				});
			}
			return out.join("; "); })()`, width))
		if bad != "" {
			t.Errorf("%s: %s", label, bad)
		}
	}
	onAPhone(t, ctx, axe, "scoreboard", func(theme string) { labels(theme+" theme at 390 px", 390) })
	// A smaller phone shows fewer times along the bottom, as readable.
	step(t, ctx, "320 px", chromedp.EmulateViewport(320, 700, chromedp.EmulateScale(2)), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("svg.graph polyline")))
	labels("at 320 px", 320)
	step(t, ctx, "desktop", chromedp.EmulateViewport(1280, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("svg.graph polyline")))
	screenshot(t, ctx, "scoreboard-desktop")
}
