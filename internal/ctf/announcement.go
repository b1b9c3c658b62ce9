package ctf

import (
	"strings"
	"unicode/utf8"
)

// Announcement limits.
const (
	MaxAnnouncementTitleChars = 200
	MaxAnnouncementBodyChars  = 20000
)

// ValidateAnnouncement checks an announcement's title and Markdown body,
// as posted by an admin or loaded from a dataset.
func ValidateAnnouncement(title, body string) error {
	switch {
	case strings.TrimSpace(title) == "":
		return FieldErrorf("title", "is required")
	case utf8.RuneCountInString(title) > MaxAnnouncementTitleChars:
		return FieldErrorf("title", "must be at most %d characters", MaxAnnouncementTitleChars)
	case !utf8.ValidString(title):
		return FieldErrorf("title", "must be valid UTF-8")
	case utf8.RuneCountInString(body) > MaxAnnouncementBodyChars:
		return FieldErrorf("body", "must be at most %d characters", MaxAnnouncementBodyChars)
	case !utf8.ValidString(body):
		return FieldErrorf("body", "must be valid UTF-8")
	}
	return nil
}
