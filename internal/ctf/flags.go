package ctf

import (
	"crypto/subtle"
	"fmt"
	"regexp"
	"strings"
)

// Compile validates f and prepares it for matching. Regex flags are RE2,
// anchored at both ends so that a pattern never matches a mere substring.
func (f *Flag) Compile() error {
	switch f.Kind {
	case "static":
		return nil
	case "regex":
		pattern := `^(?:` + f.Content + `)$`
		if f.CaseInsensitive {
			pattern = `(?i)` + pattern
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return fmt.Errorf("flag regex %q: %w", f.Content, err)
		}
		f.re = re
		return nil
	default:
		return fmt.Errorf("flag type %q: must be static or regex", f.Kind)
	}
}

// Matches reports whether the submitted (already trimmed) flag is accepted.
// Static flags compare in constant time so response timing does not leak
// how much of a guess was right.
func (f *Flag) Matches(submitted string) bool {
	switch f.Kind {
	case "static":
		a, b := submitted, f.Content
		if f.CaseInsensitive {
			a, b = strings.ToLower(a), strings.ToLower(b)
		}
		return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
	case "regex":
		if f.re == nil {
			if err := f.Compile(); err != nil {
				return false
			}
		}
		return f.re.MatchString(submitted)
	}
	return false
}

// CheckFlag reports whether any of the challenge's flags accepts submitted.
// Every flag is checked so the time taken does not say which one matched.
func (c *Challenge) CheckFlag(submitted string) bool {
	ok := false
	for i := range c.Flags {
		if c.Flags[i].Matches(submitted) {
			ok = true
		}
	}
	return ok
}

// NormalizeFlag trims the submission and enforces the length rules.
func NormalizeFlag(raw string) (string, error) {
	f := strings.TrimSpace(raw)
	if f == "" {
		return "", Errorf(Invalid, "flag must not be empty")
	}
	if len(f) > MaxFlagBytes {
		return "", Errorf(Invalid, "flag must be at most %d bytes", MaxFlagBytes)
	}
	return f, nil
}
