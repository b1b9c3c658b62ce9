package ctf

import (
	"crypto/sha256"
	"crypto/subtle"
	"regexp"
	"regexp/syntax"
	"strings"
)

// FlagKind is how a flag is matched: as the exact text, or as a pattern.
type FlagKind string

// Flag kinds.
const (
	FlagStatic FlagKind = "static"
	FlagRegex  FlagKind = "regex"
)

// FlagKinds are the kinds of flag, in the order forms list them.
var FlagKinds = []FlagKind{FlagStatic, FlagRegex}

// Compile validates f and prepares it for matching (ValidateFlag's rules).
// Regex flags are RE2, anchored at both ends so that a pattern never
// matches a mere substring; static flags keep the digest they are
// compared by.
func (f *Flag) Compile() error {
	if err := ValidateFlag(f.Kind, f.Content); err != nil {
		return err
	}
	switch f.Kind {
	case FlagStatic:
		f.digest = flagDigest(f.Content, f.CaseInsensitive)
	case FlagRegex:
		re, err := anchoredRegexp(f.Content, f.CaseInsensitive)
		if err != nil {
			return err
		}
		f.re = re
	}
	return nil
}

// ValidateFlag checks an organiser's flag: a known kind, non-empty content
// of at most MaxFlagBytes, and for a regex, RE2 syntax that compiles on its
// own, so it cannot close the anchoring group and escape it (content
// `a)|(?:.*` would otherwise accept every flag).
func ValidateFlag(kind FlagKind, content string) error {
	if kind != FlagStatic && kind != FlagRegex {
		return Errorf(Invalid, "flag type must be static or regex, not %q", kind)
	}
	if strings.TrimSpace(content) == "" {
		return Errorf(Invalid, "flag content must not be empty")
	}
	if len(content) > MaxFlagBytes {
		return Errorf(Invalid, "flag content must be at most %d bytes", MaxFlagBytes)
	}
	if kind == FlagRegex {
		if _, err := anchoredRegexp(content, false); err != nil {
			return err
		}
	}
	return nil
}

// anchoredRegexp compiles content as a whole-string match. The content is
// parsed on its own first; the anchored pattern is then built from the
// parse tree, never by pasting text around the content.
func anchoredRegexp(content string, caseInsensitive bool) (*regexp.Regexp, error) {
	flags := syntax.Perl
	if caseInsensitive {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(content, flags)
	if err != nil {
		return nil, Errorf(Invalid, "flag regex %q is not a valid RE2 expression: %v", content,
			strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	anchored := &syntax.Regexp{Op: syntax.OpConcat, Flags: flags, Sub: []*syntax.Regexp{
		{Op: syntax.OpBeginText, Flags: flags}, tree, {Op: syntax.OpEndText, Flags: flags},
	}}
	re, err := regexp.Compile(anchored.String())
	if err != nil {
		return nil, Errorf(Invalid, "flag regex %q: %v", content, err)
	}
	return re, nil
}

// flagDigest is what a static flag is compared by: comparing fixed-size
// digests takes the same time whatever the lengths, where comparing the
// strings would return early when their lengths differ.
func flagDigest(s string, caseInsensitive bool) [sha256.Size]byte {
	if caseInsensitive {
		s = strings.ToLower(s)
	}
	return sha256.Sum256([]byte(s))
}

// digestsEqual compares two digests in constant time.
var digestsEqual = func(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }

// Matches reports whether the submitted (already trimmed) flag is accepted.
func (f *Flag) Matches(submitted string) bool {
	if f.re == nil && f.digest == ([sha256.Size]byte{}) {
		if err := f.Compile(); err != nil {
			return false
		}
	}
	switch f.Kind {
	case FlagStatic:
		got := flagDigest(submitted, f.CaseInsensitive)
		return digestsEqual(got[:], f.digest[:])
	case FlagRegex:
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
