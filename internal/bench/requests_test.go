package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/flagshipctf/flagship/internal/api"
)

// consumed counts the SubmitCorrect targets used so far in this process.
var consumed int

func run(b *testing.B, name string) {
	e := fullEnv(b)
	sc := scenarios[name]
	calls := sc.calls(e)
	if len(calls) == 0 {
		b.Skip("no requests for this scenario at this event size")
	}
	w := NewDiscard()
	h := e.Handler
	once := name == "SubmitCorrect"
	if once {
		calls = calls[consumed:]
		if b.N > len(calls) {
			b.Fatalf("%d correct submissions asked, %d unsolved targets left: use a shorter -benchtime", b.N, len(calls))
		}
		consumed += b.N
	}
	// Warm up outside the timer: first use of a key touches its last-used
	// time, first use of a body computes its gzip form.
	if !once {
		for _, c := range calls[:min(len(calls), 2000)] {
			c.do(h, w)
		}
	}
	var bytes int64
	b0, s0, w0 := e.Batches.Counts()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := calls[i%len(calls)]
		c.do(h, w)
		if w.Status != sc.want {
			b.Fatalf("%s %s: status %d, want %d", c.r.Method, c.r.URL, w.Status, sc.want)
		}
		bytes += w.Bytes
	}
	b.StopTimer()
	b.ReportMetric(float64(bytes)/float64(b.N), "body-B/op")
	if b1, _, w1 := e.Batches.Counts(); b1 > b0 {
		// One at a time: what group commit adds to a lone submission.
		b.ReportMetric(float64((w1-w0).Nanoseconds())/float64(b1-b0), "queued-ns/op")
		reportBatches(b, e, b0, s0)
	}
}

func BenchmarkLeaderboardAnon(b *testing.B) {
	run(b, "LeaderboardAnon")
	reportSizes(b, fullEnv(b).Handler, "/api/public/leaderboard")
}

// reportSizes reports the plain and gzip sizes of an anonymous GET.
func reportSizes(b *testing.B, h http.Handler, path string) {
	for _, enc := range []string{"", "gzip"} {
		r := httptest.NewRequest("GET", path, nil)
		if enc != "" {
			r.Header.Set("Accept-Encoding", enc)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		unit := "plain-B"
		if enc != "" {
			unit = "gzip-B"
		}
		b.ReportMetric(float64(w.Body.Len()), unit)
	}
}

func BenchmarkLeaderboardGzip(b *testing.B)        { run(b, "LeaderboardGzip") }
func BenchmarkLeaderboardNotModified(b *testing.B) { run(b, "LeaderboardNotModified") }

// BenchmarkLeaderboardTop100 is a page of the board (limit, an extension
// of the contract), spliced from the version's entries.
func BenchmarkLeaderboardTop100(b *testing.B) {
	run(b, "LeaderboardTop100")
	reportSizes(b, fullEnv(b).Handler, leaderboard+"?limit=100")
}

func BenchmarkLeaderboardTop100Gzip(b *testing.B) { run(b, "LeaderboardTop100Gzip") }

func BenchmarkChallengesAnon(b *testing.B) {
	run(b, "ChallengesAnon")
	reportSizes(b, fullEnv(b).Handler, "/api/public/challenges")
}

func BenchmarkChallengesAnonGzip(b *testing.B) { run(b, "ChallengesAnonGzip") }
func BenchmarkWebBoardAnon(b *testing.B)       { run(b, "WebBoardAnon") }
func BenchmarkWebBoardPlayer(b *testing.B)     { run(b, "WebBoardPlayer") }
func BenchmarkWebChallengePlayer(b *testing.B) { run(b, "WebChallengePlayer") }
func BenchmarkWebScoreboard(b *testing.B)      { run(b, "WebScoreboard") }
func BenchmarkWebScoreboardPage9(b *testing.B) { run(b, "WebScoreboardPage9") }

// BenchmarkWebFirstVisit reports what a first visit to the board
// transfers, the page and its assets, gzipped as a browser asks.
func BenchmarkWebFirstVisit(b *testing.B) {
	e := fullEnv(b)
	rec := httptest.NewRecorder()
	e.Handler.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	paths := append([]string{"/"}, regexp.MustCompile(`/static/[a-z]+\.[0-9a-f]{10}\.(css|js)`).FindAllString(rec.Body.String(), -1)...)
	var total int64
	for i := 0; i < b.N; i++ {
		total = 0
		for _, p := range paths {
			w := NewDiscard()
			get(p, "Accept-Encoding: gzip, deflate, br").do(e.Handler, w)
			total += w.Bytes
		}
	}
	b.ReportMetric(float64(total), "first-visit-B")
}
func BenchmarkChallengesNotModified(b *testing.B) { run(b, "ChallengesNotModified") }
func BenchmarkChallengesAuth(b *testing.B)        { run(b, "ChallengesAuth") }
func BenchmarkChallengesAuthGzip(b *testing.B)    { run(b, "ChallengesAuthGzip") }
func BenchmarkChallengeDetailAuth(b *testing.B)   { run(b, "ChallengeDetailAuth") }
func BenchmarkChallengeDetailAnon(b *testing.B)   { run(b, "ChallengeDetailAnon") }
func BenchmarkMe(b *testing.B)                    { run(b, "Me") }
func BenchmarkProfilePublic(b *testing.B)         { run(b, "ProfilePublic") }
func BenchmarkWriteups(b *testing.B)              { run(b, "Writeups") }
func BenchmarkSubmitWrong(b *testing.B)           { run(b, "SubmitWrong") }
func BenchmarkHealth(b *testing.B)                { run(b, "Health") }

// BenchmarkSubmitCorrect changes the event (each op is a new solve, so the
// leaderboard and lists are rebuilt afterwards); it runs after the reads.
func BenchmarkSubmitCorrect(b *testing.B) { run(b, "SubmitCorrect") }

// BenchmarkSolveThenLeaderboard is a live event's cost of a solve to the
// board: each op is a correct submission, the build of the board's next
// version that it sets off (waited for: readers never wait, they get the
// previous version meanwhile), and one plain and one gzip leaderboard
// request. Builds are not coalesced here (interval 0): each solve pays for
// its own, as at a quiet moment; under a rush several solves share one.
// Subtract SubmitCorrect for the build.
func BenchmarkSolveThenLeaderboard(b *testing.B) {
	e := fullEnv(b)
	submits := scenarios["SubmitCorrect"].calls(e)[consumed:]
	if b.N > len(submits) {
		b.Fatalf("%d correct submissions asked, %d unsolved targets left", b.N, len(submits))
	}
	consumed += b.N
	reads := []*call{get(leaderboard), get(leaderboard, "Accept-Encoding: gzip")}
	w := NewDiscard()
	board := e.Front.API()
	board.SetLeaderboardInterval(0)
	defer board.SetLeaderboardInterval(api.DefaultLeaderboardInterval)
	ctx := context.Background()
	for _, c := range reads { // the board as readers keep it current
		c.do(e.Handler, w)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		submits[i].do(e.Handler, w)
		if w.Status != 200 {
			b.Fatalf("submit: status %d", w.Status)
		}
		if err := board.WaitLeaderboard(ctx); err != nil {
			b.Fatal(err)
		}
		for _, c := range reads {
			c.do(e.Handler, w)
			if w.Status != 200 {
				b.Fatalf("leaderboard: status %d", w.Status)
			}
		}
	}
}

// BenchmarkWrongThenChallengesGzip is the same for a wrong submission and
// the anonymous list it makes stale (its attempt count changed): a wrong
// submission, then the gzip anonymous list.
func BenchmarkWrongThenChallengesGzip(b *testing.B) {
	e := fullEnv(b)
	submits := scenarios["SubmitWrong"].calls(e)
	read := get(challenges, "Accept-Encoding: gzip")
	w := NewDiscard()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		submits[(len(submits)/2+i)%len(submits)].do(e.Handler, w)
		if w.Status != 400 {
			b.Fatalf("submit: status %d", w.Status)
		}
		read.do(e.Handler, w)
		if w.Status != 200 {
			b.Fatalf("challenges: status %d", w.Status)
		}
	}
}
