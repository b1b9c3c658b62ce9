package platform

import (
	"context"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// PostAnnouncement posts a message to the players (admins and the
// operator): a title, a Markdown body and optionally the challenge it is
// about (by slug). It reaches the live stream and the webhooks.
func (s *Event) PostAnnouncement(ctx context.Context, v Viewer, title, body, challengeSlug string) (AnnouncementView, error) {
	if !v.admin() {
		return AnnouncementView{}, errNotAdmin
	}
	title, body, challengeSlug = strings.TrimSpace(title), strings.TrimSpace(body), strings.TrimSpace(challengeSlug)
	if err := ctf.ValidateAnnouncement(title, body); err != nil {
		return AnnouncementView{}, err
	}
	a := ctf.Announcement{ID: ctf.NewID(), Title: title, Body: body, CreatedAt: ctf.Millis(s.now())}
	if v.User != nil {
		a.AuthorID = v.User.ID
	}
	if challengeSlug != "" {
		st := s.state()
		st.mu.RLock()
		c := st.bySlug[challengeSlug]
		if c != nil && !c.Hidden {
			a.ChallengeID = c.ID
		}
		st.mu.RUnlock()
		if a.ChallengeID == "" {
			return AnnouncementView{}, ctf.FieldErrorf("challenge", "no challenge has the slug %q", challengeSlug)
		}
	}
	s.gate.RLock()
	defer s.gate.RUnlock()
	seqs, err := s.db.PostAnnouncement(ctx, a, s.audit(v, "announcement.post", a.ID, map[string]any{"title": title}))
	s.noteWrite(err)
	if err != nil {
		return AnnouncementView{}, err
	}
	var view AnnouncementView
	s.applyOwn(seqs, func(st *state, _ dirtySet) {
		st.putAnnouncement(a)
		view = st.announcementView(a)
	})
	s.wakeUp() // relay its stream event now
	return view, nil
}

// AnnouncementsAfter counts the announcements posted after t: a page's
// unread mark, counted without building their views.
func (s *Event) AnnouncementsAfter(t time.Time) int {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	n := 0
	for i := len(st.announcements) - 1; i >= 0 && st.announcements[i].CreatedAt.After(t); i-- {
		n++
	}
	return n
}

// Announcements returns the announcements, newest first.
func (s *Event) Announcements() []AnnouncementView {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	out := make([]AnnouncementView, 0, len(st.announcements))
	for i := len(st.announcements) - 1; i >= 0; i-- {
		out = append(out, st.announcementView(st.announcements[i]))
	}
	return out
}
