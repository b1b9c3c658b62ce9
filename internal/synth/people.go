package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The players and admins of a generated event, and their names.

var firstNames = []string{"Alice", "Bob", "Carol", "Dave", "Eve", "Mallory", "Trent", "Peggy", "Victor", "Walter",
	"Yuki", "Amara", "Lukas", "Sofia", "Mateo", "Chen", "Priya", "Omar", "Ingrid", "Kofi", "Nadia", "Tomás", "Aiko", "Leila"}
var lastNames = []string{"Smith", "Nakamura", "García", "Okafor", "Müller", "Kowalski", "Singh", "Haddad", "Ivanova",
	"Larsen", "Costa", "Dubois", "Kim", "Novak", "Rossi", "Mensah", "O'Brien", "Yilmaz"}

func (g *gen) users() {
	e, rng := g.e, g.rng
	const admins = 4
	e.admins = admins
	e.Users = make([]ctf.User, 0, admins+g.cfg.Players)
	base := e.Start.Add(-30 * 24 * time.Hour)
	for i := 0; i < admins; i++ {
		at := base.Add(time.Duration(i) * time.Minute)
		e.Users = append(e.Users, ctf.User{ID: newID(rng, at), Username: fmt.Sprintf("organiser%d", i+1),
			Name: "Organiser " + firstNames[i], Email: fmt.Sprintf("organiser%d@example.org", i+1),
			Role: ctf.RoleAdmin, CreatedAt: at})
	}
	// Registration spreads over the four weeks before the start, most of
	// it in the last days.
	active := activePlayers(g.cfg.Players)
	inactive := make([]bool, g.cfg.Players)
	for _, i := range rng.Perm(g.cfg.Players)[:g.cfg.Players-active] {
		inactive[i] = true
	}
	offsets := make([]int64, g.cfg.Players)
	span := int64(28 * 24 * time.Hour / time.Millisecond)
	for i := range offsets {
		offsets[i] = span - int64(float64(span)*math.Pow(rng.Float64(), 3))
	}
	sort.Slice(offsets, func(i, j int) bool { return offsets[i] < offsets[j] })
	for i := 0; i < g.cfg.Players; i++ {
		at := base.Add(time.Duration(offsets[i]) * time.Millisecond).Add(time.Duration(i) * time.Millisecond)
		u := ctf.User{ID: newID(rng, at), Username: fmt.Sprintf("player%05d", i+1),
			Email: fmt.Sprintf("player%05d@example.org", i+1), Role: ctf.RolePlayer, CreatedAt: ctf.Millis(at)}
		if rng.IntN(10) < 7 {
			u.Name = firstNames[rng.IntN(len(firstNames))] + " " + lastNames[rng.IntN(len(lastNames))]
		}
		if rng.IntN(5) == 0 {
			u.Image = "https://avatars.example.org/" + u.Username + ".png"
		}
		e.Users = append(e.Users, u)
	}
	e.players = make([]*player, g.cfg.Players)
	for i := range e.players {
		p := &player{idx: i, user: &e.Users[admins+i], solvedAt: map[int]int64{}}
		if !inactive[i] {
			// Log-normal activity: a long tail of casual players and a few
			// who clear nearly the whole board.
			p.weight = math.Exp(0.85 * rng.NormFloat64())
			// Most start at the opening; latecomers trickle in.
			p.start = int64(float64(eventMillis) * 0.75 * math.Pow(rng.Float64(), 2.5))
		}
		e.players[i] = p
	}
}

var categories = []struct {
	name   string
	weight int
	nouns  []string
}{
	{"web", 25, []string{"Cookie Jar", "Session Fixation", "Template Trouble", "Blind Injection", "Upload Center", "SSRF Cafe", "Prototype Pollution", "JWT Bakery", "GraphQL Maze", "Cache Poisoner"}},
	{"crypto", 18, []string{"Baby RSA", "Padding Oracle", "Lattice Party", "Curve Ball", "Nonce Reuse", "Stream of Lies", "Hash Length", "Broken PRNG", "Xor Mania", "Signature Swap"}},
	{"pwn", 17, []string{"Stack Smash", "Heap Feng Shui", "Format Fun", "ROP Chain", "Use After Free", "Kernel Notes", "Seccomp Jail", "Tcache Dance", "Shellcode Golf", "Integer Wrap"}},
	{"reversing", 17, []string{"Crackme", "VM Escape", "Obfuscated Loader", "Packed Binary", "Rusty Keygen", "Go Maze", "WASM Lock", "Android Vault", "Firmware Dump", "Anti Debug"}},
	{"forensics", 13, []string{"Memory Dump", "PCAP Party", "Disk Image", "Stego Cat", "Log Hunt", "Deleted Files", "USB Keystrokes", "Registry Run", "Corrupted PNG", "Timeline"}},
	{"misc", 10, []string{"Sanity Check", "Python Jail", "OSINT Walk", "Trivia Night", "Esoteric Code", "Bash Golf", "Radio Waves", "QR Puzzle", "Discord Hunt", "Survey"}},
}

var adjectives = []string{"Tiny", "Lost", "Secret", "Broken", "Quantum", "Silent", "Rusty", "Hidden", "Frozen", "Crimson", "Endless", "Lazy"}

var difficulties = []struct {
	name   ctf.Difficulty
	weight int
	points []int
	pop    float64
}{
	{ctf.Easy, 32, []int{50, 100, 100, 150}, 10},
	{ctf.Medium, 35, []int{200, 250, 300}, 2.5},
	{ctf.Hard, 22, []int{350, 400, 450}, 0.6},
	{ctf.Insane, 11, []int{500}, 0.12},
}

var words = strings.Fields(`the server keeps a secret flag behind a login form that trusts its input a little too much
you get the source code a binary and a packet capture find what the developer forgot and read the flag the service
runs on an old kernel with a custom allocator the key is derived from a timestamp our intern wrote the protocol
nothing could possibly go wrong every byte counts and the checker is strict but fair hint think about what happens
when two requests race the admin bot visits every link you report the archive is password protected`)

func weighted[T any](rng *rand.Rand, items []T, weight func(T) int) T {
	total := 0
	for _, it := range items {
		total += weight(it)
	}
	r := rng.IntN(total)
	for _, it := range items {
		if r -= weight(it); r < 0 {
			return it
		}
	}
	return items[len(items)-1]
}
