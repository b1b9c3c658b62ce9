package live

import (
	"math"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// State is the in-memory hot state of one event: everything the public
// reads need, kept current by applying each solve and wrong attempt as it is
// recorded, never recomputed from the database per request.
type State struct {
	mu sync.RWMutex

	revision  int64
	publicURL string
	users     map[string]*user
	byName    map[string]*user   // by username
	byFold    map[string]*user   // by ctf.FoldUsername(username): unique too
	byEmail   map[string]*user   // by lowercased email
	chals     map[string]*chal   // by id, hidden included
	bySlug    map[string]*chal   // hidden included; lookups treat them as absent
	visible   []*chal            // list order
	catTotal  map[string]int     // visible challenges per category
	keys      map[string]*apiKey // by prefix: keys are verified from memory
	keyByID   map[string]*apiKey
	sessions  map[string]*session // by id hash, active ones
	writeups  map[string]*writeup // by id

	// solveSeqs, attemptSeqs and changeSeqs know which database rows are
	// reflected here, so catch-up reads apply each row exactly once.
	solveSeqs, attemptSeqs, changeSeqs seqTracker
	// snapAttempts are the attempts the snapshot counted: numbers up to
	// max, less unseen (see store.WrongBaseline).
	snapAttempts struct {
		max    int64
		unseen []int64
	}

	solveVer uint64 // bumped by every change to the leaderboard (moveBoard): ranks, entries
	listVer  uint64 // bumped by every change to the challenge list
	// lastVer numbers the versions of entries (a user's leaderboard entry,
	// a challenge's list entry), so a front door keeps what it built of an
	// entry until its version moves.
	lastVer uint64

	ranking rankCache
	// onBoard is told when solveVer moves, with mu held (see
	// Service.OnLeaderboardChange); nil while the state is being built.
	onBoard func()

	// The event's clock as of clockAt (advanceClock moves it): the phase,
	// and the freeze in force, if any. A solve at or after freezeAt while
	// frozen is held: its solver sees it, the public aggregates do not.
	event    ctf.Event
	clockAt  time.Time
	phase    ctf.Phase
	frozen   bool
	freezeAt time.Time

	// next is the next instant (Unix ms) at which the clock decides
	// otherwise: the one number a read checks.
	next atomic.Int64

	announcements []ctf.Announcement  // oldest first
	pages         map[string]ctf.Page // by name: those with a row
	logo          *ctf.Logo           // nil: none
	// streamMax is the newest row of the live stream this state relayed.
	streamMax int64
	// building: the state is being built from a snapshot; values are
	// worked out once at the end rather than at each solve (a dynamic
	// challenge's value moves with nearly every one of its solves).
	building bool
}

type user struct {
	ctf.User
	player bool
	solves []*solve          // visible challenges only, in (time, seq) order
	solved map[string]*solve // by challenge id, hidden ones included
	points int
	// wrong counts wrong submissions by challenge id applied since the
	// snapshot; base those the snapshot counted, read when first needed
	// (nil until then): a ban or a promotion moves their sum.
	wrong    map[string]int64
	base     map[string]int64
	keys     []*apiKey  // oldest first, revoked ones included
	sessions []*session // active ones, oldest first
	ver      uint64     // version of the leaderboard entry
	// held are the badges the user was seen to hold before a change could
	// take them away (noteBadges): one earned back is not announced again.
	held map[string]bool
	// unlocks are the user's hint unlocks by challenge id (nil: none).
	unlocks map[string][]ctf.HintUnlock
}

type solve struct {
	ctf.Solve
	user *user
	chal *chal
	// attached: counted in its user's public history (u.solves, points).
	attached bool
	// worth is what the solve adds to its user's points while attached:
	// its challenge's value less the hints its user was charged for
	// (worthOf), kept so that a change of either moves the total by the
	// difference.
	worth int
}

// apiKey is a key as authentication needs it; lastUsed (Unix ms) moves on
// under the state's read lock, hence atomic.
type apiKey struct {
	ctf.APIKey
	lastUsed atomic.Int64
}

type session struct {
	ctf.Session
	lastSeen atomic.Int64 // Unix ms
}

type writeup struct {
	ctf.Writeup
}

type chal struct {
	ctf.Challenge
	creator      *user
	solves       []*solve              // every solve, in (time, seq) order
	playerSolves []*solve              // players' solves of a visible challenge, in (time, seq) order
	writeups     []*writeup            // oldest first
	wrong        int64                 // players' wrong attempts
	reviews      map[string]ctf.Review // by user id, everyone's (each sees their own)
	// The aggregates count players' reviews only, as solves count.
	reviewCount, starsSum, diffSum int
	ver                            uint64 // version of the list entry
	// pending: not open to the public yet (before the event's start, or
	// before its release time), as of the state's clock.
	pending bool
	// value is the challenge's value as the public sees it: its points,
	// or its dynamic scoring's value with the players' counted solves
	// (revalue keeps it current).
	value int
}

// shown reports whether c is open to the public: not hidden, not pending.
func (c *chal) shown() bool { return !c.Hidden && !c.pending }

// counts reports whether a solve counts in the public aggregates: of a
// shown challenge, not a practice solve, not held by a freeze. (Whether
// its user is a player is the caller's to add.)
func (st *State) counts(x *solve) bool {
	return x.chal.shown() && !x.Practice && !st.hold().holds(x.At)
}

// hold is what the freeze in force holds back from the public: the solves
// (and, on an agent's run, the attempts) made at or after its instant.
func (st *State) hold() heldFrom { return heldFrom{on: st.frozen, at: st.freezeAt} }

// heldFrom is a freeze as of one read of the state, kept past its lock.
type heldFrom struct {
	on bool
	at time.Time
}

// holds reports whether something done at t is held back from the public.
func (h heldFrom) holds(t time.Time) bool { return h.on && !t.Before(h.at) }

// seesHeld reports whether v sees what a freeze holds back of u's: u
// themselves (as Me shows a player their own held solves), u's owner when
// u is an agent, and admins (who see the live standings). Everyone else
// sees the public standings.
func seesHeld(v ctf.Viewer, u *ctf.User) bool {
	if v.IsAdmin() {
		return true
	}
	return v.User != nil && (v.User.ID == u.ID || (u.IsAgent() && v.User.ID == u.OwnerID))
}

// newStateAfter builds a state from a snapshot, with every version (of the lists, of their
// entries) past after: a front door that keeps what it built of an entry
// by version must not mistake a rebuilt state's entry for the old one.
func newStateAfter(snap *store.Snapshot, publicURL string, now time.Time, after uint64) *State {
	s := &State{
		lastVer:       after,
		solveVer:      after + 1,
		listVer:       after + 1,
		event:         snap.Event,
		announcements: snap.Announcements,
		pages:         pagesByName(snap.Pages),
		logo:          snap.Logo,
		streamMax:     snap.Stream,
		revision:      snap.Revision,
		publicURL:     publicURL,
		users:         make(map[string]*user, len(snap.Users)),
		byName:        make(map[string]*user, len(snap.Users)),
		byFold:        make(map[string]*user, len(snap.Users)),
		byEmail:       make(map[string]*user, len(snap.Users)),
		chals:         make(map[string]*chal, len(snap.Challenges)),
		bySlug:        make(map[string]*chal, len(snap.Challenges)),
		catTotal:      map[string]int{},
		keys:          make(map[string]*apiKey, len(snap.APIKeys)),
		keyByID:       make(map[string]*apiKey, len(snap.APIKeys)),
		sessions:      make(map[string]*session, len(snap.Sessions)),
		writeups:      make(map[string]*writeup, len(snap.Writeups)),

		attemptSeqs: newSeqTrackerAt(snap.MaxAttemptSeq, store.GapWindow, snap.RecentAttemptSeqs, now),
		changeSeqs:  newSeqTrackerAt(snap.MaxChangeSeq, store.GapWindow, snap.RecentChangeSeqs, now),
	}
	for _, u := range snap.Users {
		s.addUser(u)
	}
	for _, u := range s.users {
		if u.IsAgent() {
			u.player = s.isPlayer(&u.User) // its owner is in now
		}
	}
	for _, c := range snap.Challenges {
		ch := &chal{Challenge: c, reviews: map[string]ctf.Review{}, creator: s.users[c.AuthorID], value: c.Value(0)}
		s.chals[c.ID] = ch
		s.bySlug[c.Slug] = ch
	}
	s.setClock(now)
	s.sortVisible()
	s.putHintUnlocks(snap.HintUnlocks) // before the solves, whose worth they lessen
	solveSeqs := make([]int64, len(snap.Solves))
	s.building = true
	for i := range snap.Solves {
		s.addSolve(snap.Solves[i])
		solveSeqs[i] = snap.Solves[i].Seq
	}
	s.building = false
	for _, c := range s.chals {
		s.revalue(c, true)
	}
	s.solveSeqs = newSeqTrackerAt(snap.MaxSolveSeq, store.GapWindow, solveSeqs, now)
	for _, r := range snap.Reviews {
		s.putReview(r)
	}
	for id, n := range snap.WrongAttempts {
		if c := s.chals[id]; c != nil {
			c.wrong = n
		}
	}
	s.snapAttempts.max = snap.MaxAttemptSeq
	_, s.snapAttempts.unseen = s.attemptSeqs.query()
	for _, k := range snap.APIKeys {
		s.putKey(k)
	}
	for _, ss := range snap.Sessions {
		s.addSession(ss)
	}
	for _, w := range snap.Writeups {
		s.putWriteup(w)
	}
	for _, c := range s.visible {
		s.changedChal(c)
	}
	for _, u := range s.users {
		u.ver = s.bump()
	}
	return s
}

// moveBoard notes a change of the leaderboard: its order or an entry.
func (s *State) moveBoard() {
	s.solveVer++
	if s.onBoard != nil {
		s.onBoard()
	}
}

// lastVersion is the highest version the state has given out; the caller
// holds mu.
func (s *State) lastVersion() uint64 { return max(s.lastVer, s.solveVer, s.listVer) }

// bump returns a new entry version.
func (s *State) bump() uint64 {
	s.lastVer++
	return s.lastVer
}

// changedChal notes that c's list entry changed.
func (s *State) changedChal(c *chal) { c.ver = s.bump() }

// sortVisible rebuilds the list of visible challenges, in list order, and
// the per-category totals.
func (s *State) sortVisible() {
	s.visible = s.visible[:0]
	s.catTotal = map[string]int{}
	for _, c := range s.chals {
		if c.shown() {
			s.visible = append(s.visible, c)
			for _, cat := range c.Categories {
				s.catTotal[cat]++
			}
		}
	}
	sortChallenges(s.visible)
}

// sortChallenges sorts list in list order: oldest first, then by slug.
func sortChallenges(list []*chal) {
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.Slug < b.Slug
	})
}

// addSolve records a solve; the caller holds mu (or owns s) and marks
// the challenge changed. Solves of unknown users or challenges are ignored; those
// of hidden challenges are kept but count nowhere until it is shown.
func (s *State) addSolve(sv ctf.Solve) *solve {
	u, c := s.users[sv.UserID], s.chals[sv.ChallengeID]
	if u == nil || c == nil || u.solved[c.ID] != nil {
		return nil
	}
	x := &solve{Solve: sv, user: u, chal: c}
	// The state holds every solve of the event: its strings are shared
	// with its user and challenge (and, for the usual static flag, with
	// the challenge's flag) rather than each solve's copies from the
	// database, some 20 MB at 200,000 solves. The strings it keeps of its
	// own are copied: the database's were allocated row by row between
	// the ones it drops, and would keep a page of garbage around each.
	x.ID, x.UserID, x.ChallengeID = strings.Clone(x.ID), u.ID, c.ID
	flag := strings.Clone(x.Flag)
	for _, f := range c.Flags {
		if f.Content == x.Flag {
			flag = f.Content
			break
		}
	}
	x.Flag = flag
	u.solved[c.ID] = x
	c.solves = insertSolve(c.solves, x)
	if s.counts(x) {
		s.attach(x)
		if u.player {
			c.playerSolves = insertSolve(c.playerSolves, x)
			s.revalue(c, false)
			s.moveBoard()
			s.listVer++
		}
	}
	return x
}

// attach counts a solve in its user's public history.
func (s *State) attach(x *solve) {
	if x.attached {
		return
	}
	x.attached = true
	u := x.user
	u.solves = insertSolve(u.solves, x)
	x.worth = s.worthOf(x)
	u.points += x.worth
	u.ver = s.bump()
}

// detach undoes attach.
func (s *State) detach(x *solve) {
	if !x.attached {
		return
	}
	x.attached = false
	u := x.user
	u.solves = removeSolve(u.solves, x)
	u.points -= x.worth
	x.worth = 0
	u.ver = s.bump()
}

// recountChallenge counts c's solves again after its visibility or the
// freeze moved: each is attached or not as counts says, and the players'
// solves follow.
func (s *State) recountChallenge(c *chal) {
	c.playerSolves = c.playerSolves[:0]
	for _, x := range c.solves {
		if s.counts(x) {
			s.attach(x)
			if x.user.player {
				c.playerSolves = append(c.playerSolves, x)
			}
		} else {
			s.detach(x)
		}
	}
	s.revalue(c, true)
}

func removeSolve(list []*solve, x *solve) []*solve {
	for i, y := range list {
		if y == x {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

func insertSolve(list []*solve, x *solve) []*solve {
	i := sort.Search(len(list), func(i int) bool { return ctf.SolveBefore(&x.Solve, &list[i].Solve) })
	list = append(list, nil)
	copy(list[i+1:], list[i:])
	list[i] = x
	return list
}

func (c *chal) attempts() int64 { return c.wrong + int64(len(c.playerSolves)) }

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// countReview adds (sign 1) or removes (-1) a player's review from the
// aggregates.
func (c *chal) countReview(r ctf.Review, sign int) {
	c.reviewCount += sign
	c.starsSum += sign * r.Stars
	c.diffSum += sign * r.Difficulty
}

func (c *chal) avgStars() *float64 {
	if c.reviewCount == 0 {
		return nil
	}
	v := round2(float64(c.starsSum) / float64(c.reviewCount))
	return &v
}

func (c *chal) avgDifficulty() *float64 {
	if c.reviewCount == 0 {
		return nil
	}
	v := round2(float64(c.diffSum) / float64(c.reviewCount))
	return &v
}

func (c *chal) summary(solved bool, publicURL string) ChallengeSummary {
	sum := ChallengeSummary{
		ID: c.ID, Slug: c.Slug, Categories: c.Categories, Title: c.Title, Description: c.Description,
		Difficulty: c.Difficulty, Points: c.value, HasInstance: c.HasInstance, DockerPort: c.DockerPort,
		Type: c.Type, AttemptsCount: c.attempts(), CreatedAt: ctf.FormatTime(c.CreatedAt),
		Solved: solved, SolvesCount: len(c.playerSolves), AvgStars: c.avgStars(), Tags: c.Tags, Scoring: c.Scoring,
	}
	if sum.Categories == nil {
		sum.Categories = []string{}
	}
	if u := c.fileURL(publicURL); u != "" {
		sum.FileURL, sum.FileName = strPtr(u), strPtr(c.FileName)
	}
	if u := c.creator; u != nil {
		sum.Creator = &Creator{ID: u.ID, Name: strPtr(u.Name), Username: strPtr(u.Username)}
	}
	return sum
}

// fileURL is where c's file is downloaded: its link elsewhere, or our own
// content-addressed path; "" without a file.
func (c *chal) fileURL(publicURL string) string {
	switch {
	case c.FileURL != "":
		return c.FileURL
	case c.FileSHA256 != "":
		return publicURL + "/files/" + c.FileSHA256 + "/" + url.PathEscape(c.FileName)
	}
	return ""
}

func displayName(u *user) string {
	if u.Name != "" {
		return u.Name
	}
	return u.Username
}

// unlocked reports whether u (nil for anonymous) has solved every visible
// prerequisite of c. A hidden prerequisite cannot be solved, so it does not
// lock anything.
func (s *State) unlocked(c *chal, u *user) bool {
	for _, id := range c.Requires {
		p := s.chals[id]
		if p == nil || p.Hidden {
			continue
		}
		if u == nil || u.solved[id] == nil {
			return false
		}
	}
	return true
}

// visibleBySlug returns the challenge unless it is unknown, hidden or
// pending.
func (s *State) visibleBySlug(slug string) *chal {
	c := s.bySlug[slug]
	if c == nil || !c.shown() {
		return nil
	}
	return c
}

// openBySlug is visibleBySlug for v: admins also see and test pending
// challenges (before the start, before their release), never hidden ones.
func (s *State) openBySlug(slug string, v ctf.Viewer) *chal {
	c := s.bySlug[slug]
	if c == nil || !openTo(c, v) {
		return nil
	}
	return c
}

// openTo reports whether v may see c at all: the one rule of what a
// viewer may know exists (open to the public, or pending and v an admin).
func openTo(c *chal, v ctf.Viewer) bool { return !c.Hidden && (!c.pending || v.IsAdmin()) }
