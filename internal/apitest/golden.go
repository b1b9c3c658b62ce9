package apitest

import (
	"testing"
	"time"
)

// GoldenEvent is the fixed event of the golden files (here and in the
// packages that serve it too): every id and every time is given, and the
// file is inline, so that what the server answers depends on nothing but
// the code. It has ties (by points, by the time of the last solve), a
// hidden and a scheduled challenge, a prerequisite, an admin, a banned
// player, an agent, a file, reviews, a writeup, wrong attempts, a challenge
// nobody solved and a webhook of each kind.
const GoldenEvent = `
event:
  name: Golden CTF
  start: 2026-01-05T09:00:00Z
  end: 2026-01-20T09:00:00Z
  flagFormat: flag{...}
users:
  - {id: 0190a000-0000-7000-8000-000000000001, username: alice, name: Alice, email: alice@example.com, createdAt: 2026-01-01T00:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000002, username: bob, name: Bob, email: bob@example.com, createdAt: 2026-01-01T01:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000003, username: carol, email: carol@example.com, createdAt: 2026-01-01T02:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000004, username: dave, name: Dave, email: dave@example.com, createdAt: 2026-01-01T03:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000005, username: erin, name: Erin, email: erin@example.com, createdAt: 2026-01-01T04:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000006, username: root, name: Root, email: root@example.com, role: admin, createdAt: 2026-01-01T00:30:00Z}
  - {id: 0190a000-0000-7000-8000-000000000007, username: mallory, name: Mallory, email: mallory@example.com, banned: true, createdAt: 2026-01-01T05:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000008, username: alice-bot, kind: agent, owner: alice, model: claude-sonnet-4-5, harness: react, createdAt: 2026-01-02T00:00:00Z}
challenges:
  - {id: 0190a000-0000-7000-8000-000000000101, slug: warmup, title: Warm-up, description: Read the **rules**., categories: [misc],
     difficulty: Easy, points: 50, flags: ['flag{warmup}'], tags: [intro], createdAt: 2026-01-04T10:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000102, slug: baby-rsa, title: Baby RSA, description: Small numbers., categories: [crypto, math],
     difficulty: Medium, points: 100, flags: ['flag{rsa}'], author: alice, file: {name: handout.txt, contentBase64: UlNBIGhhbmRvdXQKbiA9IDMyMzMKZSA9IDE3CmMgPSAyNzkwCg==},
     connectionInfo: nc rsa.example 1337, createdAt: 2026-01-04T11:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000103, slug: rop, title: ROP Chain, description: Return to where., categories: [pwn],
     difficulty: Hard, points: 300, flags: ['flag{rop}'], requires: [warmup], createdAt: 2026-01-04T12:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000104, slug: web-1, title: Web One, categories: [web], difficulty: Insane, points: 200,
     flags: [{type: regex, content: 'flag\{w[0-9]+\}'}], createdAt: 2026-01-04T13:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000105, slug: draft, title: Draft, categories: [misc], points: 1000, flags: ['flag{draft}'],
     hidden: true, createdAt: 2026-01-04T14:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000107, slug: forensics-1, title: "Lost *bits* <here>", categories: [forensics],
     difficulty: Medium, points: 250, flags: ['flag{bits}'], createdAt: 2026-01-04T16:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000106, slug: wave-2, title: Wave 2, categories: [misc], points: 150, flags: ['flag{w2}'],
     releaseAt: 2026-01-15T09:00:00Z, createdAt: 2026-01-04T15:00:00Z}
solves:
  - {id: 0190a000-0000-7000-8000-000000000201, user: alice, challenge: warmup, at: 2026-01-05T10:00:00Z, flag: 'flag{warmup}'}
  - {id: 0190a000-0000-7000-8000-000000000202, user: alice, challenge: baby-rsa, at: 2026-01-05T11:00:00Z, flag: 'flag{rsa}'}
  - {id: 0190a000-0000-7000-8000-000000000203, user: bob, challenge: baby-rsa, at: 2026-01-05T10:30:00Z, flag: 'flag{rsa}'}
  - {id: 0190a000-0000-7000-8000-000000000204, user: bob, challenge: warmup, at: 2026-01-05T11:30:00Z, flag: 'flag{warmup}', door: web}
  - {id: 0190a000-0000-7000-8000-000000000205, user: carol, challenge: warmup, at: 2026-01-06T09:00:00Z, flag: 'flag{warmup}'}
  - {id: 0190a000-0000-7000-8000-000000000206, user: carol, challenge: rop, at: 2026-01-06T10:00:00Z, flag: 'flag{rop}'}
  - {id: 0190a000-0000-7000-8000-000000000207, user: dave, challenge: web-1, at: 2026-01-06T10:00:00Z, flag: 'flag{w42}'}
  - {id: 0190a000-0000-7000-8000-000000000208, user: alice-bot, challenge: warmup, at: 2026-01-06T11:00:00Z, flag: 'flag{warmup}'}
  - {id: 0190a000-0000-7000-8000-000000000209, user: root, challenge: rop, at: 2026-01-05T09:30:00Z, flag: 'flag{rop}'}
  - {id: 0190a000-0000-7000-8000-000000000210, user: mallory, challenge: warmup, at: 2026-01-05T09:10:00Z, flag: 'flag{warmup}'}
  - {id: 0190a000-0000-7000-8000-000000000211, user: carol, challenge: draft, at: 2026-01-06T12:00:00Z, flag: 'flag{draft}'}
attempts:
  - {id: 0190a000-0000-7000-8000-000000000301, user: erin, challenge: baby-rsa, at: 2026-01-06T12:00:00Z, flag: 'flag{nope}'}
  - {id: 0190a000-0000-7000-8000-000000000302, user: bob, challenge: rop, at: 2026-01-06T12:30:00Z, flag: 'flag{guess}'}
writeups:
  - {id: 0190a000-0000-7000-8000-000000000401, user: alice, challenge: baby-rsa, title: Factor it, content: Small primes., status: approved,
     images: [], createdAt: 2026-01-06T13:00:00Z, updatedAt: 2026-01-06T13:00:00Z}
reviews:
  - {id: 0190a000-0000-7000-8000-000000000501, user: alice, challenge: baby-rsa, stars: 5, difficulty: 3, createdAt: 2026-01-06T14:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000502, user: bob, challenge: baby-rsa, stars: 4, difficulty: 2, createdAt: 2026-01-06T14:30:00Z}
announcements:
  - {id: 0190a000-0000-7000-8000-000000000601, title: Welcome, body: Have **fun**., author: root, createdAt: 2026-01-05T09:00:00Z}
webhooks:
  - {id: 0190a000-0000-7000-8000-000000000701, name: Bot, kind: json, url: 'https://bot.example.com/flagship',
     secret: 0123456789abcdef0123456789abcdef, createdAt: 2026-01-02T00:00:00Z}
  - {id: 0190a000-0000-7000-8000-000000000702, name: Discord, kind: discord, url: 'https://discord.example.com/api/webhooks/1/x',
     createdAt: 2026-01-02T00:01:00Z}
  - {id: 0190a000-0000-7000-8000-000000000703, name: Slack, kind: slack, url: 'https://hooks.slack.example.com/services/T/B/x',
     events: [firstBlood, announcement], createdAt: 2026-01-02T00:02:00Z}
`

// GoldenNow is the pinned clock of the golden files: during the event,
// before wave-2's release.
var GoldenNow = time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)

// StartGolden serves GoldenEvent at GoldenNow, with a public URL that
// does not change from run to run: every byte it answers depends on the
// code alone, so that golden files (package golden) can hold them.
func StartGolden(t testing.TB) *Server {
	t.Helper()
	return Start(t, GoldenEvent, Options{Now: func() time.Time { return GoldenNow }, PublicURL: "https://ctf.example.com"})
}
