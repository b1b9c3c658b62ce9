package transfer

import (
	"fmt"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The event's keys of a dataset: its settings and its announcements.

// loadEvent replaces the event's settings with the dataset's, when it gives
// them. Like an admin's edit, it keeps the unfreeze mark while the freeze
// time stays the same: reloading the organisers' event file must not freeze
// a board again that an admin has unfrozen.
func (l *loader) loadEvent() error {
	if l.ds.Event == nil {
		return nil // no event key: the settings are left alone
	}
	e := l.ds.Event.Settings()
	old, set, err := l.tx.Content().Event()
	if err != nil {
		return err
	}
	if e.Unfrozen == nil && old.Unfrozen != nil && e.Freeze != nil && old.Freeze != nil && e.Freeze.Equal(*old.Freeze) {
		e.Unfrozen = old.Unfrozen
	}
	if err := l.tx.Content().PutEvent(e); err != nil {
		return err
	}
	l.rep.count("event", !set, set && !sameEvent(old, e))
	return nil
}

func sameEvent(a, b ctf.Event) bool {
	return a.Name == b.Name && sameTime(a.Start, b.Start) && sameTime(a.End, b.End) && sameTime(a.Freeze, b.Freeze) &&
		a.UnfreezeAtEnd == b.UnfreezeAtEnd && sameTime(a.Unfrozen, b.Unfrozen) && a.Practice == b.Practice && a.FlagFormat == b.FlagFormat
}

// loadAnnouncements upserts the announcements by id or, without one, by
// title (and createdAt when given), so that loading a hand-written file
// twice does not post its announcements twice. A load restores or syncs
// an event: it adds nothing to the live stream, so no webhook posts an old
// announcement again; replicas show them once they rebuild their state.
func (l *loader) loadAnnouncements() error {
	for i, a := range l.ds.Announcements {
		const k = "announcements"
		na := ctf.Announcement{ID: a.ID, Title: a.Title, Body: a.Body}
		var err error
		if a.Challenge != "" {
			if na.ChallengeID, err = l.challengeNamed(k, i, "challenge", a.Challenge); err != nil {
				return err
			}
		}
		if a.Author != "" {
			if na.AuthorID, err = l.userID(a.Author); err != nil {
				return err
			}
			if na.AuthorID == "" {
				return l.fail(k, i, "author", "no user %q in the dataset or the database", a.Author)
			}
		}
		var old []ctf.Announcement
		switch {
		case a.ID != "":
			old, err = l.tx.Content().Announcement(a.ID)
		case a.CreatedAt != nil:
			at := ctf.Millis(*a.CreatedAt)
			old, err = l.tx.Content().AnnouncementsTitled(a.Title, &at)
		default:
			old, err = l.tx.Content().AnnouncementsTitled(a.Title, nil)
		}
		if err != nil {
			return err
		}
		exists := len(old) > 0
		switch {
		case exists:
			na.ID, na.CreatedAt = old[0].ID, old[0].CreatedAt
			if a.CreatedAt != nil {
				na.CreatedAt = ctf.Millis(*a.CreatedAt)
			}
		case na.ID == "":
			na.ID = ctf.NewID()
			fallthrough
		default:
			na.CreatedAt = l.stamp(a.CreatedAt)
		}
		if err := l.tx.Content().UpsertAnnouncement(na); err != nil {
			return fmt.Errorf("load announcement %q: %w", a.Title, err)
		}
		l.rep.count(k, !exists, exists && !sameAnnouncement(old[0], na))
	}
	return nil
}

func sameAnnouncement(a, b ctf.Announcement) bool {
	return a.ID == b.ID && a.Title == b.Title && a.Body == b.Body && a.ChallengeID == b.ChallengeID && a.AuthorID == b.AuthorID &&
		a.CreatedAt.Equal(b.CreatedAt)
}
