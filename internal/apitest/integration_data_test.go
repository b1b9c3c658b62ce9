package apitest

// The hand-made event every integration test starts from, and the helpers
// the integration tests share. Every expected value in these tests is
// derived by hand from this dataset; the arithmetic is in comments.
//
// Users (createdAt 2026-01-01):
//
//	alice  "Alice"   player          00:00
//	root   "Root"    admin           00:30
//	bob    "Bob"     player          01:00
//	carol  (no name) player          02:00
//	dave   "Dave"    player          03:00
//	erin   "Erin"    player, no solve 04:00
//	mallory "Mallory" banned player  05:00
//
// Challenges (list order = createdAt asc, then slug):
//
//	lost-packets [forensics]  Medium 150  author alice            2026-01-04T10:00
//	baby-rsa     [crypto]     Easy   100  author alice, stored file, static case-insensitive flag  2026-01-05T10:00
//	warmup       [misc]       Easy    50  linked file, static case-sensitive flag                 2026-01-05T10:00
//	web-login    [web,crypto] Medium 200  requires warmup, regex + static flag, instance :8080     2026-01-06T10:00
//	rop-chain    [pwn]        Hard   300  requires web-login, author bob                          2026-01-07T10:00
//	kernel-panic [pwn]        Insane 500  author root                                             2026-01-08T10:00
//	draft        [misc]       Easy  1000  HIDDEN, author alice, stored file                       2026-01-03T10:00
//
// Visible challenges per category: forensics 1, crypto 2 (baby-rsa,
// web-login), misc 1 (warmup; draft is hidden), web 1, pwn 2.
//
// Solves by players, in time order (admin root and banned mallory solve too,
// and carol solves the hidden draft: none of those count anywhere):
//
//	bob   baby-rsa   01-10T09:00   (first player solver of baby-rsa)
//	alice warmup     01-10T10:00   (first player solver of warmup)
//	alice baby-rsa   01-10T11:00
//	alice web-login  01-10T12:00   flag{deadbeef} (regex)  (first of web-login)
//	bob   warmup     01-10T13:00
//	bob   web-login  01-11T10:00   flag{backdoor} (second flag)
//	dave  warmup     01-12T09:00
//	dave  baby-rsa   01-12T10:00   (no flag recorded)
//	carol lost-packets 01-12T10:00 (first player solver; mallory's earlier solve is excluded)
//
// Leaderboard: alice 50+100+200=350 (last 01-10T12:00), bob 100+50+200=350
// (last 01-11T10:00): same points, alice reached them first. carol 150 and
// dave 50+100=150, both last at 01-12T10:00: tie broken by username, carol
// before dave. erin (no solve), root (admin), mallory (banned) are absent.
const eventDataset = `
users:
  - {username: alice, name: Alice, email: alice@example.com, createdAt: 2026-01-01T00:00:00Z}
  - {username: root, name: Root, email: root@example.com, role: admin, createdAt: 2026-01-01T00:30:00Z}
  - {username: bob, name: Bob, email: bob@example.com, createdAt: 2026-01-01T01:00:00Z}
  - {username: carol, email: carol@example.com, createdAt: 2026-01-01T02:00:00Z}
  - {username: dave, name: Dave, email: dave@example.com, createdAt: 2026-01-01T03:00:00Z}
  - {username: erin, name: Erin, email: erin@example.com, createdAt: 2026-01-01T04:00:00Z}
  - {username: mallory, name: Mallory, email: mallory@example.com, banned: true, createdAt: 2026-01-01T05:00:00Z}
challenges:
  - slug: warmup
    title: Warmup
    description: Read the rules, find the flag.
    categories: [misc]
    difficulty: Easy
    points: 50
    flags: ['flag{warmup}']
    file: {name: warmup.pdf, url: 'https://files.example.com/warmup.pdf'}
    createdAt: 2026-01-05T10:00:00Z
  - slug: baby-rsa
    title: Baby RSA
    description: Small numbers, big trouble.
    categories: [crypto]
    difficulty: Easy
    points: 100
    flags: [{type: static, content: 'FLAG{Baby-RSA}', data: case_insensitive}]
    author: alice
    file: {name: handout.txt, path: '@HANDOUT@'}
    createdAt: 2026-01-05T10:00:00Z
  - slug: web-login
    title: Web Login
    description: Log in as admin.
    categories: [web, crypto]
    difficulty: Medium
    points: 200
    type: container
    flags: [{type: regex, content: 'flag\{[0-9a-f]{8}\}'}, 'flag{backdoor}']
    requires: [warmup]
    hasInstance: true
    dockerPort: 8080
    createdAt: 2026-01-06T10:00:00Z
  - slug: rop-chain
    title: ROP Chain
    description: Return to where?
    categories: [pwn]
    difficulty: Hard
    points: 300
    flags: ['flag{rop}']
    requires: [web-login, Baby RSA]   # a slug and a title
    author: bob
    createdAt: 2026-01-07T10:00:00Z
  - slug: kernel-panic
    title: Kernel Panic
    description: Ring zero.
    categories: [pwn]
    difficulty: Insane
    points: 500
    flags: ['flag{kernel}']
    author: root
    createdAt: 2026-01-08T11:00:00+01:00   # = 10:00Z
  - slug: lost-packets
    title: Lost Packets
    description: A capture file went missing.
    categories: [forensics]
    difficulty: Medium
    points: 150
    flags: ['flag{pcap}']
    author: alice
    createdAt: 2026-01-04T10:00:00Z
  - slug: draft
    title: Draft
    description: Not ready.
    categories: [misc]
    difficulty: Easy
    points: 1000
    flags: ['flag{draft}']
    author: alice
    hidden: true
    file: {name: draft.txt, path: '@DRAFT@'}
    createdAt: 2026-01-03T10:00:00Z
solves:
  - {user: root, challenge: warmup, at: 2026-01-09T00:00:00Z, flag: 'flag{warmup}'}
  - {user: mallory, challenge: baby-rsa, at: 2026-01-09T00:00:00Z, flag: 'flag{baby-rsa}'}
  - {user: mallory, challenge: lost-packets, at: 2026-01-09T01:00:00Z, flag: 'flag{pcap}'}
  - {user: root, challenge: kernel-panic, at: 2026-01-09T01:00:00Z, flag: 'flag{kernel}'}
  - {user: carol, challenge: draft, at: 2026-01-09T10:00:00Z, flag: 'flag{draft}'}
  - {user: bob, challenge: baby-rsa, at: 2026-01-10T09:00:00Z, flag: 'FLAG{BABY-RSA}'}
  - {user: alice, challenge: warmup, at: 2026-01-10T10:00:00Z, flag: 'flag{warmup}'}
  - {user: alice, challenge: baby-rsa, at: 2026-01-10T11:00:00Z, flag: 'FLAG{Baby-RSA}'}
  - {user: alice, challenge: web-login, at: 2026-01-10T12:00:00Z, flag: 'flag{deadbeef}'}
  - {user: bob, challenge: warmup, at: 2026-01-10T13:00:00Z, flag: 'flag{warmup}'}
  - {user: bob, challenge: web-login, at: 2026-01-11T10:00:00Z, flag: 'flag{backdoor}'}
  - {user: dave, challenge: warmup, at: 2026-01-12T09:00:00Z, flag: 'flag{warmup}'}
  - {user: dave, challenge: baby-rsa, at: 2026-01-12T10:00:00Z}
  - {user: carol, challenge: lost-packets, at: 2026-01-12T10:00:00Z, flag: 'flag{pcap}'}
attempts:
  - {user: erin, challenge: warmup, at: 2026-01-10T08:00:00Z, flag: 'flag{warm}'}
  - {user: erin, challenge: warmup, at: 2026-01-10T08:01:00Z, flag: 'warmup'}
  - {user: bob, challenge: web-login, at: 2026-01-11T09:00:00Z, flag: 'flag{nothex!}'}
  - {user: dave, challenge: kernel-panic, at: 2026-01-12T11:00:00Z, flag: 'flag{oops}'}
  - {user: dave, challenge: kernel-panic, at: 2026-01-12T11:05:00Z, flag: 'flag{oops2}'}
  - {user: root, challenge: warmup, at: 2026-01-08T23:00:00Z, flag: 'flag{typo}'}
  - {user: mallory, challenge: warmup, at: 2026-01-09T02:00:00Z, flag: 'x1'}
  - {user: mallory, challenge: warmup, at: 2026-01-09T02:01:00Z, flag: 'x2'}
  - {user: mallory, challenge: warmup, at: 2026-01-09T02:02:00Z, flag: 'x3'}
  - {user: carol, challenge: draft, at: 2026-01-09T09:00:00Z, flag: 'flag{draf}'}
writeups:
  - {user: root, challenge: warmup, title: Admin notes, content: The intended path., status: rejected,
     createdAt: 2026-01-09T12:00:00Z, updatedAt: 2026-01-09T12:00:00Z}
  - {user: bob, challenge: warmup, title: Bob reads the rules, content: Just read them., status: approved,
     images: ['https://img.example.com/bob.png'], createdAt: 2026-01-11T09:00:00Z, updatedAt: 2026-01-11T09:30:00Z}
  - {user: alice, challenge: warmup, title: Alice reads faster, content: Ctrl-F flag., status: approved,
     createdAt: 2026-01-11T10:00:00Z, updatedAt: 2026-01-11T10:00:00Z}
  - {user: dave, challenge: warmup, title: Dave WIP, content: Work in progress., status: pending,
     createdAt: 2026-01-12T11:00:00Z}
  - {user: bob, challenge: baby-rsa, title: RSA notes, content: Cube root., status: rejected,
     createdAt: 2026-01-10T10:00:00Z, updatedAt: 2026-01-10T10:00:00Z}
reviews:
  - {user: alice, challenge: warmup, stars: 5, difficulty: 2, createdAt: 2026-01-11T11:00:00Z}
  - {user: bob, challenge: warmup, stars: 4, difficulty: 3, createdAt: 2026-01-11T11:01:00Z}
  - {user: dave, challenge: warmup, stars: 4, difficulty: 3, createdAt: 2026-01-12T12:00:00Z}
  - {user: alice, challenge: baby-rsa, stars: 3, difficulty: 5, createdAt: 2026-01-11T11:02:00Z}
  - {user: bob, challenge: baby-rsa, stars: 4, difficulty: 6, createdAt: 2026-01-11T11:03:00Z}
  - {user: alice, challenge: web-login, stars: 2, difficulty: 7, createdAt: 2026-01-11T11:04:00Z}
  - {user: carol, challenge: lost-packets, stars: 5, difficulty: 4, createdAt: 2026-01-12T12:01:00Z}
`

// SHA-256 of the testdata files, computed by hand with sha256sum.
const (
	handoutSHA = "d990b5be905dbd3bf97cc3ff2cbd242d47fefdd8fbb93f3ed87e7c46616d80e2"
	draftSHA   = "a9d39818462c9c7ce7203ea01967a19defbc6ca1b7ab6dc2ee4f529763ad2299"
)

// listOrder is the anonymous list order: createdAt asc, then slug
// (baby-rsa and warmup share 2026-01-05T10:00).
var listOrder = []string{"lost-packets", "baby-rsa", "warmup", "web-login", "rop-chain", "kernel-panic"}
