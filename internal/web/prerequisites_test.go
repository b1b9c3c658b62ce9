package web_test

import (
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// releaseEvent has a challenge that requires one released challenge, one
// not released yet and one hidden.
const releaseEvent = `
users:
  - {username: pam, email: pam@example.com, password: pam-password}
  - {username: root, email: root@example.com, password: root-password, role: admin}
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{warm}']}
  - {slug: sequel-soon, title: Sequel Soon, categories: [web], difficulty: Hard, points: 300, flags: ['flag{s}'],
     releaseAt: 2099-01-01T00:00:00Z}
  - {slug: draft, title: Secret Draft, categories: [web], difficulty: Hard, points: 300, flags: ['flag{d}'], hidden: true}
  - {slug: finale, title: Finale, categories: [web], difficulty: Hard, points: 500, flags: ['flag{f}'],
     requires: [warmup, sequel-soon, draft]}
`

// TestPrerequisitesNotYetReleased: a challenge's page names the
// prerequisites a player may see and only counts the ones not released
// yet; a hidden one is neither named nor counted (it locks nothing). An
// admin, who sees pending challenges, sees it named.
func TestPrerequisitesNotYetReleased(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, releaseEvent)
	for _, b := range []*browser{newBrowser(t, s), logIn(t, s, "pam")} {
		p := b.get("/challenges/finale")
		want(t, "finale", p, 200, `<a href="/challenges/warmup">Warmup</a>`, "1 more challenge not released yet")
		for _, leak := range []string{"sequel-soon", "Sequel Soon", "draft", "Secret Draft"} {
			if strings.Contains(p.body, leak) {
				t.Errorf("the page of finale names %q", leak)
			}
		}
	}
	want(t, "an admin", logIn(t, s, "root").get("/challenges/finale"), 200, `<a href="/challenges/sequel-soon">Sequel Soon</a>`)
}
