package platform

import (
	"context"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// PostAnnouncement posts a message to the players (admins and the
// operator): a title, a Markdown body and optionally the challenge it is
// about (by slug). It reaches the live stream and the webhooks.
func (s *Event) PostAnnouncement(ctx context.Context, v ctf.Viewer, title, body, challengeSlug string) (live.AnnouncementView, error) {
	if !v.IsAdmin() {
		return live.AnnouncementView{}, ctf.ErrNotAdmin
	}
	title, body, challengeSlug = strings.TrimSpace(title), strings.TrimSpace(body), strings.TrimSpace(challengeSlug)
	if err := ctf.ValidateAnnouncement(title, body); err != nil {
		return live.AnnouncementView{}, err
	}
	a := ctf.Announcement{ID: ctf.NewID(), Title: title, Body: body, CreatedAt: ctf.Millis(s.now())}
	if v.User != nil {
		a.AuthorID = v.User.ID
	}
	if challengeSlug != "" {
		if c, ok := s.live.State().ChallengeBySlug(challengeSlug); ok && !c.Hidden {
			a.ChallengeID = c.ID
		}
		if a.ChallengeID == "" {
			return live.AnnouncementView{}, ctf.FieldErrorf("challenge", "no challenge has the slug %q", challengeSlug)
		}
	}
	defer s.live.Write()()
	seqs, err := s.db.PostAnnouncement(ctx, a, s.audit(v, "announcement.post", a.ID, map[string]any{"title": title}))
	s.noteWrite(err)
	if err != nil {
		return live.AnnouncementView{}, err
	}
	var view live.AnnouncementView
	s.live.Apply(seqs, func(tx *live.Tx) { view = tx.PutAnnouncement(a) })
	s.wakeUp() // relay its stream event now
	return view, nil
}

// AnnouncementsAfter is live.State.AnnouncementsAfter.
func (s *Event) AnnouncementsAfter(t time.Time) int { return s.live.State().AnnouncementsAfter(t) }

// Announcements is live.State.Announcements.
func (s *Event) Announcements() []live.AnnouncementView { return s.live.State().Announcements() }
