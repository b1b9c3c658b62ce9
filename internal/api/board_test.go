package api

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/synth"
)

// boardFixture is a service over a fresh database (storetest's backend)
// holding a synthetic event, with what a test needs to play in it.
type boardFixture struct {
	t      testing.TB
	db     *store.DB
	svc    *platform.Service
	users  []ctf.User        // players who may submit, new ones included
	flagOf map[string]string // a correct flag by slug
	slugs  []string
}

func newBoardFixture(t testing.TB, players int) *boardFixture {
	t.Helper()
	ctx := context.Background()
	db := storetest.Open(t)
	ev, err := synth.Generate(synth.Config{Players: players, Challenges: 24, Solves: players * 5, Attempts: players, Seed: 7, Keys: players})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Write(ctx, db); err != nil {
		t.Fatal(err)
	}
	svc := platform.New(db, platform.Options{PublicURL: "http://flagship.test", FilesDir: t.TempDir(),
		RateLimit: store.RateLimit{Max: 100000, Window: time.Minute}})
	if err := svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	f := &boardFixture{t: t, db: db, svc: svc, flagOf: map[string]string{}}
	for _, u := range ev.Users {
		if u.Role == ctf.RolePlayer {
			f.users = append(f.users, u)
		}
	}
	for _, tg := range ev.Targets(len(ev.Challenges)) {
		f.flagOf[tg.Slug] = tg.Flag
	}
	for _, c := range ev.Challenges {
		if _, ok := f.flagOf[c.Slug]; ok {
			f.slugs = append(f.slugs, c.Slug)
		}
	}
	return f
}

// solve submits a correct flag for a random player and challenge; refusals
// (locked, solved, banned, hidden) are part of the game.
func (f *boardFixture) solve(rng *rand.Rand) {
	u := f.users[rng.IntN(len(f.users))]
	slug := f.slugs[rng.IntN(len(f.slugs))]
	_, err := f.svc.Play.Submit(context.Background(), ctf.Viewer{User: &u}, slug, f.flagOf[slug])
	if code := ctf.ErrorCode(err); err != nil && code != ctf.Forbidden && code != ctf.Conflict && code != ctf.NotFound {
		f.t.Fatalf("submit %s by %s: %v", slug, u.Username, err)
	}
}

// wholeBoard is the leaderboard as the API built it before chunks: every
// entry encoded, joined in one buffer; and the entries' JSON. It panics if
// the service's order is not that of docs/product.md#leaderboard.
func wholeBoard(svc *platform.Service) ([]byte, [][]byte) {
	_, rows := svc.Scoreboard.Leaderboard(nil)
	entries := make([][]byte, len(rows))
	b := []byte(`{"leaderboard":[`)
	for i, r := range rows {
		if i > 0 {
			a, e := rows[i-1].Entry, r.Entry
			if !ctf.RanksBefore(ctf.Standing{Username: a.Username, TotalPoints: a.TotalPoints, LastSolvedAt: a.LastSolvedAt},
				ctf.Standing{Username: e.Username, TotalPoints: e.TotalPoints, LastSolvedAt: e.LastSolvedAt}) {
				panic(fmt.Sprintf("leaderboard: %s before %s", a.Username, e.Username))
			}
		}
		entries[i] = appendLeaderboardEntry(nil, r.Entry)
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, entries[i]...)
	}
	return append(b, "]}"...), entries
}

func pageOf(entries [][]byte, lo, hi int) []byte {
	return append(append([]byte(`{"leaderboard":[`), bytes.Join(entries[lo:hi], []byte(","))...), "]}"...)
}

// gunzip decodes one whole gzip member (checking its CRC and length
// trailer) and fails on anything after it.
func gunzip(t testing.TB, gz []byte) []byte {
	t.Helper()
	r := bytes.NewReader(gz)
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	zr.Multistream(false)
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	if r.Len() != 0 {
		t.Fatalf("%d bytes after the gzip member", r.Len())
	}
	trailer := gz[len(gz)-8:]
	if crc, n := binary.LittleEndian.Uint32(trailer), binary.LittleEndian.Uint32(trailer[4:]); crc != crc32.ChecksumIEEE(plain) || n != uint32(len(plain)) {
		t.Fatalf("trailer: crc %08x size %d, want %08x %d", crc, n, crc32.ChecksumIEEE(plain), len(plain))
	}
	return plain
}

// checkBody checks a spliced body against the bytes it must hold: plain,
// gzip decoding to them, the ETag of those bytes.
func checkBody(t testing.TB, what string, b *boardBody, want []byte) {
	t.Helper()
	if got := bytes.Join(b.plain(), nil); !bytes.Equal(got, want) || b.size() != len(want) {
		t.Fatalf("%s: plain body differs from a whole encoding\n got %.300s\nwant %.300s", what, got, want)
	}
	if got := gunzip(t, b.gzipped()); !bytes.Equal(got, want) {
		t.Fatalf("%s: gzip body decodes to other bytes", what)
	}
	if b.etag() != ETag(want) {
		t.Fatalf("%s: ETag %s, want %s (the bytes' own)", what, b.etag(), ETag(want))
	}
}

// testEvery is the mean chunk length in tests: many chunks on a small
// board.
const testEvery = 8

// testCache is a board cache that builds only when asked (the service does
// not kick it).
func testCache(svc *platform.Service) *boardCache {
	return &boardCache{svc: svc, every: testEvery, published: make(chan struct{})}
}

// scratchBoard is the board built by a cache that holds nothing yet.
func scratchBoard(svc *platform.Service) *boardSnap { return testCache(svc).build() }

// TestIncrementalBoardEqualsRebuild plays a seeded random sequence of
// solves, wrong flags, hint unlocks, bans and unbans, hidden and shown
// challenges, point and scoring corrections (dynamic values, hint costs), new players, renames and an operator's reload, and after
// each step builds the board incrementally (from the previous version's
// entries and chunks) and from scratch: the plain bytes are today's whole
// encoding, the gzip stream is valid and decodes to them, both builds are
// byte-identical in both forms, the ETag moves exactly when the bytes do,
// earlier versions are never altered, and random pages are the slices of
// the whole.
func TestIncrementalBoardEqualsRebuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newBoardFixture(t, 200)
	rng := rand.New(rand.NewPCG(10, 1))
	inc := testCache(f.svc)
	var prev *boardSnap
	var prevPlain, prevGz []byte
	counts := map[string]int{}
	hidden := map[string]bool{}
	banned := map[string]bool{}
	for step := range 300 {
		var op string
		switch x := rng.IntN(100); {
		case x < 42:
			op = "solve"
			f.solve(rng)
		case x < 50:
			op = "hint unlock"
			u := f.users[rng.IntN(len(f.users))]
			f.svc.Play.UnlockHint(ctx, ctf.Viewer{User: &u}, f.slugs[rng.IntN(len(f.slugs))], 1)
		case x < 55:
			op = "wrong flag"
			u := f.users[rng.IntN(len(f.users))]
			f.svc.Play.Submit(ctx, ctf.Viewer{User: &u}, f.slugs[rng.IntN(len(f.slugs))], "flag{not it}")
		case x < 63:
			op = "ban or unban"
			u := f.users[rng.IntN(len(f.users))]
			banned[u.ID] = !banned[u.ID]
			if _, err := f.svc.Admin.SetBanned(ctx, ctf.Operator, u.ID, banned[u.ID], ""); err != nil {
				t.Fatal(err)
			}
		case x < 69:
			op = "hide or show a challenge"
			slug := f.slugs[rng.IntN(len(f.slugs))]
			hidden[slug] = !hidden[slug]
			if _, err := f.svc.Content.SetChallengeHidden(ctx, ctf.Operator, slug, hidden[slug]); err != nil {
				t.Fatal(err)
			}
		case x < 77:
			op = "points"
			in, err := f.svc.Content.ChallengeForEdit(ctx, ctf.Operator, f.slugs[rng.IntN(len(f.slugs))])
			if err != nil {
				t.Fatal(err)
			}
			in.Points = 50 * (1 + rng.IntN(10))
			switch rng.IntN(3) { // issue 21: dynamic scoring and hints with a cost
			case 0:
				in.Scoring = ctf.Scoring{}
			case 1:
				in.Scoring = ctf.Scoring{Type: ctf.DynamicScoring, Initial: in.Points, Minimum: in.Points / 5, Decay: 1 + rng.IntN(8)}
			default:
				in.Hints = []ctf.Hint{{ID: 1, Content: "a hint", Cost: 10 * rng.IntN(30)}}
			}
			if _, err := f.svc.Content.SaveChallenge(ctx, ctf.Operator, in); err != nil {
				t.Fatal(err)
			}
		case x < 87:
			op = "new player"
			name := fmt.Sprintf("newbie%d", step)
			u, err := f.svc.Accounts.CreateUser(ctx, ctf.Operator, platform.NewUser{Username: name, Email: name + "@example.com", Name: "Newbie «" + name + "»"})
			if err != nil {
				t.Fatal(err)
			}
			f.users = append(f.users, u)
		case x < 96:
			op = "rename"
			u := f.users[rng.IntN(len(f.users))]
			if _, err := f.svc.Accounts.UpdateProfile(ctx, ctf.Viewer{User: &u}, fmt.Sprintf("Renamed %d \"quoted\"", step), ""); err != nil {
				t.Fatal(err)
			}
		default:
			// Behind the service's back, then a rebuild of its state: the
			// entries' versions must not be mistaken for the old state's.
			op = "reload"
			u := f.users[rng.IntN(len(f.users))]
			name := fmt.Sprintf("Reloaded %d", step)
			if _, _, err := f.db.Accounts().UpdateUser(ctx, u.ID, store.UserUpdate{Name: &name}, "", nil); err != nil {
				t.Fatal(err)
			}
			if err := f.svc.Load(ctx); err != nil {
				t.Fatal(err)
			}
		}
		counts[op]++
		what := fmt.Sprintf("step %d (%s)", step, op)

		whole, entries := wholeBoard(f.svc)
		s := inc.build()
		checkBody(t, what+", incremental", s.full, whole)
		fresh := scratchBoard(f.svc)
		checkBody(t, what+", from scratch", fresh.full, whole)
		gz := s.full.gzipped()
		if !bytes.Equal(gz, fresh.full.gzipped()) {
			t.Fatalf("%s: the incremental gzip stream differs from the one built from scratch", what)
		}
		if (s.full.etag() == ETag(prevPlain)) != bytes.Equal(whole, prevPlain) {
			t.Fatalf("%s: the ETag moved %v, the bytes moved %v", what, s.full.etag() != ETag(prevPlain), !bytes.Equal(whole, prevPlain))
		}
		if prev != nil && (!bytes.Equal(bytes.Join(prev.full.plain(), nil), prevPlain) || !bytes.Equal(prev.full.gzipped(), prevGz)) {
			t.Fatalf("%s: building this version altered the previous one", what)
		}
		for range 2 {
			off, lim := rng.IntN(len(entries)+3), 1+rng.IntN(len(entries)+3)
			if rng.IntN(4) == 0 {
				lim = -1
			}
			lo, hi := min(off, len(entries)), len(entries)
			if lim >= 0 {
				hi = min(hi, lo+lim)
			}
			checkBody(t, fmt.Sprintf("%s, page offset %d limit %d", what, off, lim), s.page(off, lim), pageOf(entries, lo, hi))
		}
		prev, prevPlain, prevGz = s, whole, gz
	}
	t.Logf("steps: %v; last board: %d entries in %d chunks, %d bytes, gzip %d", counts, len(prev.entries), len(prev.chunks),
		prev.full.size(), len(prev.full.gzipped()))
}
