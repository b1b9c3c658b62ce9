package live

import "time"

// AnnouncementsAfter counts the announcements posted after t: a page's
// unread mark, counted without building their views.
func (st *State) AnnouncementsAfter(t time.Time) int {
	st.mu.RLock()
	defer st.mu.RUnlock()
	n := 0
	for i := len(st.announcements) - 1; i >= 0 && st.announcements[i].CreatedAt.After(t); i-- {
		n++
	}
	return n
}

// Announcements returns the announcements, newest first.
func (st *State) Announcements() []AnnouncementView {
	st.mu.RLock()
	defer st.mu.RUnlock()
	out := make([]AnnouncementView, 0, len(st.announcements))
	for i := len(st.announcements) - 1; i >= 0; i-- {
		out = append(out, st.announcementView(st.announcements[i]))
	}
	return out
}
