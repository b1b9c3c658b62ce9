package web

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// plural says a count of a noun in English: "1 solve", "0 solves",
// "2 more challenges" (issue 20, fix 14). The count may be any integer
// kind a view holds.
func plural(n any, noun string) string {
	var x int64
	switch v := n.(type) {
	case int:
		x = int64(v)
	case int64:
		x = v
	case int32:
		x = int64(v)
	case uint64:
		x = int64(v)
	}
	if x == 1 || x == -1 {
		return strconv.FormatInt(x, 10) + " " + noun
	}
	return strconv.FormatInt(x, 10) + " " + noun + "s"
}

// sentence is a refusal's message (the API's words: "challenge is locked",
// "too many wrong submissions for this challenge; try again later") as a
// page says it: one sentence, capitalised, with its full stop, and with the
// wait when there is one folded into it ("…; try again in 2 minutes.")
// rather than said after it.
func sentence(msg string, wait time.Duration) string {
	msg = strings.TrimRight(strings.TrimSpace(msg), ".")
	if msg == "" {
		msg = "something went wrong"
	}
	if wait > 0 {
		head, last, ok := strings.Cut(msg, "; ")
		for ok && strings.Contains(last, "; ") { // the last clause
			var h string
			h, last, _ = strings.Cut(last, "; ")
			head += "; " + h
		}
		switch {
		case ok && strings.HasPrefix(last, "try again"):
			msg = head + "; try again in " + waitText(wait)
		case ok && strings.HasPrefix(last, "wait "):
			msg = head + "; wait " + waitText(wait) + " " + strings.TrimPrefix(last, "wait ")
		default:
			msg += "; wait " + waitText(wait)
		}
	}
	first, rest, _ := strings.Cut(msg, " ")
	switch {
	case acronyms[first] != "":
		first = acronyms[first]
	case strings.ContainsAny(first, "._[]"):
		// A field's name (flags[0].content): said as it is written.
	default:
		r, n := utf8.DecodeRuneInString(first)
		first = string(unicode.ToUpper(r)) + first[n:]
	}
	if rest != "" {
		first += " " + rest
	}
	return first + "."
}

// acronyms are the words a refusal may start with that are written in
// capitals ("url must name a public host").
var acronyms = map[string]string{"url": "URL", "api": "API", "http": "HTTP", "https": "HTTPS", "smtp": "SMTP", "json": "JSON", "yaml": "YAML"}
