package web

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// fieldLabels name the use cases' input fields in words, as a sentence
// names them ("the title"), so that a refusal reads as the page does, not
// as the API's field names (ctf.FieldErrorf: "dockerPort must be ...").
var fieldLabels = map[string]string{
	"title":            "the title",
	"slug":             "the slug",
	"description":      "the description",
	"categories":       "the category list",
	"difficulty":       "the difficulty",
	"points":           "the points",
	"type":             "the type",
	"flags":            "the challenge",
	"flagFormat":       "the flag format",
	"requires":         "the prerequisite list",
	"author":           "the author",
	"tags":             "the tag list",
	"file":             "the handout",
	"file.name":        "the handout's name",
	"file.url":         "the handout's link",
	"dockerPort":       "the port",
	"connectionInfo":   "the connection info",
	"releaseAt":        "the release time",
	"instance":         "the per-player instance",
	"body":             "the message",
	"challenge":        "the challenge",
	"content":          "the writeup",
	"images":           "the image links",
	"name":             "the name",
	"username":         "the username",
	"email":            "the email address",
	"password":         "the password",
	"text":             "the text",
	"logo":             "the logo",
	"page":             "the page",
	"scoring":          "the scoring",
	"scoring.type":     "the scoring",
	"scoring.initial":  "the initial value",
	"scoring.minimum":  "the minimum value",
	"scoring.decay":    "the decay",
	"scoring.function": "the decay function",
	"hints":            "the hint list",
}

// hintFieldLabels name the fields of a hint's row ("hints[1].cost"), said
// after the row's number: "Hint 2: the cost must be ...".
var hintFieldLabels = map[string]string{"id": "its id", "content": "the text", "cost": "the cost", "requires": "the hint it requires"}

var (
	flagRow   = regexp.MustCompile(`^flags\[(\d+)\]$`)
	hintField = regexp.MustCompile(`^hints\[(\d+)\]\.(\w+)$`)
)

// fieldSentence is e, an error about one input field (ctf.FieldErrorf),
// as one sentence that names the field in words and starts with a
// capital: "title must be at most 200 characters" reads "The title must
// be at most 200 characters.", "flags[0] flag content must not be empty"
// reads "Flag 1: content must not be empty." (the editor's rows count
// from 1). An error about no field is its message as a sentence.
func fieldSentence(e *ctf.Error) string {
	msg := e.Message
	if e.Field != "" {
		rest, ok := strings.CutPrefix(msg, e.Field+" ")
		if !ok {
			rest = msg
		}
		h := hintField.FindStringSubmatch(e.Field)
		switch m := flagRow.FindStringSubmatch(e.Field); {
		case m != nil:
			n, _ := strconv.Atoi(m[1])
			msg = "Flag " + strconv.Itoa(n+1) + ": " + strings.TrimPrefix(rest, "flag ")
		case h != nil:
			n, _ := strconv.Atoi(h[1])
			msg = "Hint " + strconv.Itoa(n+1) + ": " + rest
			if first, _, _ := strings.Cut(rest, " "); predicates[first] && hintFieldLabels[h[2]] != "" {
				msg = "Hint " + strconv.Itoa(n+1) + ": " + hintFieldLabels[h[2]] + " " + rest
			}
		case ok:
			switch first, _, _ := strings.Cut(rest, " "); {
			case predicates[first]: // "must be ...", "is required"
				msg = fieldLabel(e.Field) + " " + rest
			case first == "no" || first == "a" || first == "an" || first == "the":
				msg = rest // "no challenge has the slug ...": a clause of its own
			default: // "unknown key (did you mean ...)"
				msg = fieldLabel(e.Field) + ": " + rest
			}
		}
	}
	return sentence(msg, 0)
}

// predicates are the words a field's refusal starts with when it says
// what the field is or must be ("title is required").
var predicates = map[string]bool{"must": true, "is": true, "are": true, "needs": true, "need": true, "names": true,
	"cannot": true, "can": true, "would": true, "sets": true, "has": true, "have": true, "and": true, "should": true,
	"may": true, "was": true, "does": true, "do": true, "exceeds": true}

// fieldLabel names field in words: from fieldLabels, else "the instance's
// memory" for "instance.memory", else its words ("the docker port" for
// "dockerPort").
func fieldLabel(field string) string {
	if l, ok := fieldLabels[field]; ok {
		return l
	}
	if parent, child, ok := strings.Cut(field, "."); ok {
		return "the " + strings.TrimPrefix(fieldLabel(parent), "the ") + "'s " + camelWords(child)
	}
	return "the " + camelWords(field)
}

// camelWords splits a camelCase name: "maxLifetime" is "max lifetime".
func camelWords(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// fieldOf is the input field err is about, "" for none.
func fieldOf(err error) string {
	var e *ctf.Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// refusedInWords is refused (the status, the wait, the log) with a field
// error as a sentence that names the field in words (fieldSentence).
func (h *Handler) refusedInWords(w http.ResponseWriter, r *http.Request, err error) page {
	p := h.refused(w, r, err)
	var e *ctf.Error
	if errors.As(err, &e) && e.Field != "" {
		p.Error = fieldSentence(e)
	}
	return p
}
