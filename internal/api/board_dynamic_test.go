package api

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/synth"
)

// BenchmarkDynamicSolveOnAHeldChallenge is issue 21's worst case for the
// board: 10,000 players (1,000 with -short), every challenge dynamic, and
// one challenge held by half of them whose value drops by a point with
// every solver (linear, decay 1), so each op — one more solve of it, then
// the board's next version built — changes the entry of every solver of
// it. Besides the time it reports what the build did: the entries it
// encoded again and their bytes, the chunks it compressed again and
// theirs, and the whole board's bytes. FLAGSHIP_BENCH_HELD_PERCENT sets
// how many of the players hold the challenge (50 by default).
func BenchmarkDynamicSolveOnAHeldChallenge(b *testing.B) {
	players := 10_000
	if testing.Short() {
		players = 1_000
	}
	held := players / 2
	if pc, err := strconv.Atoi(os.Getenv("FLAGSHIP_BENCH_HELD_PERCENT")); err == nil && pc > 0 && pc < 100 {
		held = players * pc / 100 // 99: every entry but a hundred changes at each op
	}
	ctx := context.Background()
	db := storetest.Open(b)
	ev, err := synth.Generate(synth.Config{Players: players, Challenges: 24, Solves: players * 5, Attempts: players, Seed: 7, Dynamic: true})
	if err != nil {
		b.Fatal(err)
	}
	hot := ctf.Challenge{ID: ctf.NewID(), Slug: "held", Title: "Held", Categories: []string{"misc"}, Difficulty: ctf.Easy,
		Points: 20_000, Type: "standard", Flags: []ctf.Flag{{Kind: ctf.FlagStatic, Content: "flag{held}"}}, Tags: []string{},
		Scoring:   ctf.Scoring{Type: ctf.DynamicScoring, Initial: 20_000, Minimum: 0, Decay: 1, Function: ctf.Linear},
		CreatedAt: ev.Start}
	ev.Challenges = append(ev.Challenges, hot)
	var ps []ctf.User
	for _, u := range ev.Users {
		if u.Role == ctf.RolePlayer {
			ps = append(ps, u)
		}
	}
	for i := range held {
		ev.Solves = append(ev.Solves, ctf.Solve{ID: ctf.NewID(), UserID: ps[i].ID, ChallengeID: hot.ID, Flag: "flag{held}",
			At: ev.End.Add(time.Duration(i+1) * time.Millisecond)})
	}
	if _, err := ev.Write(ctx, db); err != nil {
		b.Fatal(err)
	}
	svc := platform.New(db, platform.Options{PublicURL: "http://flagship.test", FilesDir: b.TempDir(),
		RateLimit: store.RateLimit{Max: 100000, Window: time.Minute}})
	if err := svc.Load(ctx); err != nil {
		b.Fatal(err)
	}
	c := &boardCache{svc: svc, every: chunkEvery, published: make(chan struct{})} // the server's chunks
	first := c.build()
	if b.N > len(ps)-held {
		b.Fatalf("%d solves asked, %d players left to solve", b.N, len(ps)-held)
	}
	var work buildWork
	var building time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		u := ps[held+i]
		if _, err := svc.Play.Submit(ctx, ctf.Viewer{User: &u}, "held", "flag{held}"); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		s := c.build()
		building += time.Since(start)
		work.Entries += s.work.Entries
		work.EncodedBytes += s.work.EncodedBytes
		work.Chunks += s.work.Chunks
		work.CompressedBytes += s.work.CompressedBytes
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(building.Milliseconds())/n, "build-ms/op")
	b.ReportMetric(float64(work.Entries)/n, "entries-encoded/op")
	b.ReportMetric(float64(work.EncodedBytes)/n, "bytes-encoded/op")
	b.ReportMetric(float64(work.Chunks)/n, "chunks-compressed/op")
	b.ReportMetric(float64(work.CompressedBytes)/n, "bytes-compressed/op")
	b.ReportMetric(float64(first.full.size()), "board-bytes")
	b.ReportMetric(float64(len(first.chunks)), "board-chunks")
}
