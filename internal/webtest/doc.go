// Package webtest drives the web app in a real headless Chromium (Debian's
// chromium, through github.com/chromedp/chromedp): the flows a player and an
// organiser go through, keyboard use, accessibility (axe-core) in both
// themes, and the screenshots of docs/screenshots. It holds tests only.
package webtest
