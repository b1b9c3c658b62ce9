package ctf

import (
	"errors"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The rules of what users, organisers and datasets may enter, written once:
// the use cases, the dataset loader and the CLI all call them. Each returns
// nil or an Invalid *Error naming the field.

// Account limits (docs/product.md#accounts).
const (
	MinPasswordChars = 8
	MaxPasswordChars = 128
	MaxNameChars     = 64
	MaxEmailBytes    = 254
	MaxURLBytes      = 2048
	// MaxReasonChars bounds a reason an admin gives: a ban's, a writeup
	// rejection's.
	MaxReasonChars = 500
)

var (
	usernameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{3,32}$`)
	slugRE     = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)
)

// ValidateReason: at most MaxReasonChars characters, named field in the
// error (a form's "reason", a dataset's "banReason").
func ValidateReason(field, reason string) error {
	if utf8.RuneCountInString(reason) > MaxReasonChars {
		return FieldErrorf(field, "must be at most %d characters", MaxReasonChars)
	}
	return nil
}

// ValidateUsername: 3 to 32 of A-Z a-z 0-9 _ . -
func ValidateUsername(username string) error {
	if username == "" {
		return FieldErrorf("username", "is required")
	}
	if !usernameRE.MatchString(username) {
		return FieldErrorf("username", "must be 3 to 32 letters, digits, '_', '.' or '-'")
	}
	return nil
}

// FoldUsername is the key under which usernames are unique: ASCII letters
// lowered and nothing else, as the database's lower() folds them on both
// engines. Unicode case folding is left out on purpose: it maps "ſ" (long
// s) and "K" (Kelvin sign) to ASCII letters, so a name the username rule
// refuses would fold onto an account's.
func FoldUsername(username string) string {
	b := []byte(username)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ValidateEmail: a bare address (no display name), as mail.ParseAddress
// reads it back unchanged.
func ValidateEmail(email string) error {
	if email == "" {
		return FieldErrorf("email", "is required")
	}
	if len(email) > MaxEmailBytes {
		return FieldErrorf("email", "must be at most %d bytes", MaxEmailBytes)
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || !strings.Contains(email, "@") {
		return FieldErrorf("email", "%q is not an email address", email)
	}
	return nil
}

// ValidatePassword: 8 to 128 characters, not the username.
func ValidatePassword(password, username string) error {
	n := utf8.RuneCountInString(password)
	if n < MinPasswordChars || n > MaxPasswordChars {
		return FieldErrorf("password", "must be %d to %d characters", MinPasswordChars, MaxPasswordChars)
	}
	if !utf8.ValidString(password) {
		return FieldErrorf("password", "must be valid UTF-8 text")
	}
	if username != "" && strings.EqualFold(password, username) {
		return FieldErrorf("password", "must not be the username")
	}
	return nil
}

// ValidateDisplayName: optional, at most 64 characters of printable text.
func ValidateDisplayName(name string) error {
	if utf8.RuneCountInString(name) > MaxNameChars {
		return FieldErrorf("name", "must be at most %d characters", MaxNameChars)
	}
	if !printable(name) {
		return FieldErrorf("name", "must be printable text")
	}
	return nil
}

// ValidateWebURL checks an optional link shown to others (an avatar, a
// writeup image): only http and https, so a "javascript:" or "data:" URL
// can never reach a page.
func ValidateWebURL(field, raw string) error {
	if raw == "" {
		return nil
	}
	if len(raw) > MaxURLBytes {
		return FieldErrorf(field, "must be at most %d bytes", MaxURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !printable(raw) {
		return FieldErrorf(field, "must be an http or https URL")
	}
	return nil
}

// ValidateRole: player or admin.
func ValidateRole(role Role) error {
	if role != RolePlayer && role != RoleAdmin {
		return FieldErrorf("role", "must be player or admin, not %q", role)
	}
	return nil
}

// ValidateSlug: lowercase letters, digits and '-', starting with a letter
// or digit, at most 64.
func ValidateSlug(slug string) error {
	if !slugRE.MatchString(slug) {
		return FieldErrorf("slug", "must match ^[a-z0-9][a-z0-9-]{0,63}$, not %q", slug)
	}
	return nil
}

// ValidateDifficulty: one of the contract's four names.
func ValidateDifficulty(d Difficulty) error {
	switch d {
	case Easy, Medium, Hard, Insane:
		return nil
	}
	return FieldErrorf("difficulty", "must be Easy, Medium, Hard or Insane, not %q", d)
}

// ValidatePoints: a non-negative whole number.
func ValidatePoints(points int) error {
	if points < 0 {
		return FieldErrorf("points", "must be a non-negative integer")
	}
	return nil
}

// ValidateDockerPort: absent, or a port number.
func ValidateDockerPort(port *int) error {
	if port != nil && (*port < 1 || *port > 65535) {
		return FieldErrorf("dockerPort", "must be a port number from 1 to 65535")
	}
	return nil
}

// ValidateFlagFormat: empty, or one line of at most 200 characters, the
// shape of a flag as players are told it ("csawctf{...}").
func ValidateFlagFormat(format string) error {
	if utf8.RuneCountInString(format) > 200 || strings.ContainsAny(format, "\r\n") || !utf8.ValidString(format) {
		return FieldErrorf("flagFormat", "must be one line of at most 200 characters")
	}
	return nil
}

// ValidateOrigin: zero, or a known benchmark and the task's path.
func ValidateOrigin(o Origin) error {
	switch {
	case o == Origin{}:
		return nil
	case o.Benchmark != BenchmarkNYU && o.Benchmark != BenchmarkCybench:
		return FieldErrorf("origin.benchmark", "must be %s or %s", BenchmarkNYU, BenchmarkCybench)
	case strings.TrimSpace(o.Path) == "" || len(o.Path) > 1024:
		return FieldErrorf("origin.path", "must be the task's path in its checkout (at most 1,024 bytes)")
	case len(o.Name) > 1024:
		return FieldErrorf("origin.name", "must be at most 1,024 bytes")
	}
	return nil
}

// MaxDescriptionChars bounds a challenge's Markdown description: a page
// of text, never a payload that fills the database or every replica's
// memory.
const MaxDescriptionChars = 65536

// ValidateDescription: at most 65,536 characters of valid UTF-8.
func ValidateDescription(description string) error {
	if utf8.RuneCountInString(description) > MaxDescriptionChars {
		return FieldErrorf("description", "must be at most 65,536 characters")
	}
	if !utf8.ValidString(description) {
		return FieldErrorf("description", "must be valid UTF-8 text")
	}
	return nil
}

// ValidateCategories: at least one, none empty.
func ValidateCategories(cats []string) error {
	if len(cats) == 0 {
		return FieldErrorf("categories", "needs at least one category")
	}
	for _, c := range cats {
		if strings.TrimSpace(c) == "" {
			return FieldErrorf("categories", "must not hold an empty category")
		}
	}
	return nil
}

// ValidateFileName: a handout's name, served in Content-Disposition: no
// path, no control characters.
func ValidateFileName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\") || !printable(name) || len(name) > 255 {
		return FieldErrorf("file.name", "must be a file name without '/'")
	}
	return nil
}

// Review bounds (the contract's).
const (
	MinStars            = 1
	MaxStars            = 5
	MinReviewDifficulty = 1
	MaxReviewDifficulty = 10
)

// ValidateReview: stars 1–5, difficulty 1–10. Both faults are reported
// (errors.Join), the first one's message leading.
func ValidateReview(stars, difficulty int) error {
	var errs []error
	if stars < MinStars || stars > MaxStars {
		errs = append(errs, FieldErrorf("stars", "must be an integer from %d to %d", MinStars, MaxStars))
	}
	if difficulty < MinReviewDifficulty || difficulty > MaxReviewDifficulty {
		errs = append(errs, FieldErrorf("difficulty", "must be an integer from %d to %d", MinReviewDifficulty, MaxReviewDifficulty))
	}
	return errors.Join(errs...)
}

// Writeup limits.
const (
	MaxWriteupTitleChars   = 200
	MaxWriteupContentBytes = 64 << 10
	MaxWriteupImages       = 20
)

// ValidWriteupStatus reports whether s is a writeup status.
func ValidWriteupStatus(s WriteupStatus) bool {
	return s == WriteupPending || s == WriteupApproved || s == WriteupRejected
}

// ValidateWriteup: a title, Markdown content, and http(s) image URLs.
func ValidateWriteup(title, content string, images []string) error {
	switch n := utf8.RuneCountInString(strings.TrimSpace(title)); {
	case n == 0:
		return FieldErrorf("title", "is required")
	case n > MaxWriteupTitleChars:
		return FieldErrorf("title", "must be at most %d characters", MaxWriteupTitleChars)
	case !printable(title):
		return FieldErrorf("title", "must be printable text")
	}
	switch {
	case strings.TrimSpace(content) == "":
		return FieldErrorf("content", "is required")
	case len(content) > MaxWriteupContentBytes:
		return FieldErrorf("content", "must be at most %d bytes", MaxWriteupContentBytes)
	case !utf8.ValidString(content):
		return FieldErrorf("content", "must be valid UTF-8 text")
	}
	if len(images) > MaxWriteupImages {
		return FieldErrorf("images", "must be at most %d links", MaxWriteupImages)
	}
	for _, img := range images {
		if img == "" {
			return FieldErrorf("images", "must not hold an empty link")
		}
		if err := ValidateWebURL("images", img); err != nil {
			return err
		}
	}
	return nil
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}
