package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The editor's Scoring and Hints fieldsets. Their numbers are kept as
// typed, so that a refusal shows the form as it was sent; the use case
// checks them (ctf.NormalizeScoring), the form only reads them.

// scoringForm is the editor's scoring as typed: static or dynamic, and a
// dynamic scoring's fields (kept while static is chosen, so switching
// back loses nothing).
type scoringForm struct {
	Type                    ctf.ScoringType
	Initial, Minimum, Decay string
	Function                ctf.DecayFunc
}

// hintRow is a row of the editor's hints, as typed. ID is the hint's id:
// kept on edit, the next free one on a new row.
type hintRow struct {
	ID, Content, Cost, Requires string
}

// blankHintRows is how many empty rows the editor adds for more hints.
const blankHintRows = 2

// editorScoring fills the scoring and hint rows from the challenge when
// they were not typed (the editor opened), and adds blank hint rows with
// the next free ids.
func (f *challengeForm) editorScoring() {
	if f.Points == "" {
		f.Points = strconv.Itoa(f.In.Points)
	}
	if f.Scoring.Type == "" {
		sc := f.In.Scoring
		f.Scoring = scoringForm{Type: ctf.StaticScoring, Function: ctf.Logarithmic, Initial: strconv.Itoa(f.In.Points)}
		if sc.IsDynamic() {
			f.Scoring = scoringForm{Type: ctf.DynamicScoring, Initial: strconv.Itoa(sc.Initial), Minimum: strconv.Itoa(sc.Minimum),
				Decay: strconv.Itoa(sc.Decay), Function: sc.Function}
		}
	}
	if f.HintRows == nil {
		for _, h := range f.In.Hints {
			row := hintRow{ID: strconv.Itoa(h.ID), Content: h.Content, Cost: strconv.Itoa(h.Cost)}
			if h.Requires != 0 {
				row.Requires = strconv.Itoa(h.Requires)
			}
			f.HintRows = append(f.HintRows, row)
		}
	}
	next := nextHintID(f.HintRows)
	for i := range blankHintRows {
		f.HintRows = append(f.HintRows, hintRow{ID: strconv.Itoa(next + i)})
	}
}

// nextHintID is the id after the greatest of rows' ids: a new hint never
// takes the id of one the form holds.
func nextHintID(rows []hintRow) int {
	n := 0
	for _, r := range rows {
		if id, err := strconv.Atoi(r.ID); err == nil {
			n = max(n, id)
		}
	}
	return n + 1
}

// scoringOf reads the editor's scoring: static (or none sent) is the zero
// scoring; dynamic reads its fields, the first that is no whole number
// refused by name.
func scoringOf(r *http.Request) (ctf.Scoring, scoringForm, error) {
	f := scoringForm{Type: ctf.ScoringType(r.FormValue("scoring")), Initial: r.FormValue("scoringInitial"),
		Minimum: r.FormValue("scoringMinimum"), Decay: r.FormValue("scoringDecay"), Function: ctf.DecayFunc(r.FormValue("scoringFunction"))}
	switch f.Type {
	case "", ctf.StaticScoring:
		f.Type = ctf.StaticScoring
		return ctf.Scoring{}, f, nil
	case ctf.DynamicScoring:
	default:
		return ctf.Scoring{Type: f.Type}, f, nil // the use case refuses it by name
	}
	sc := ctf.Scoring{Type: ctf.DynamicScoring, Function: f.Function}
	for _, x := range []struct {
		field, typed string
		to           *int
	}{{"scoring.initial", f.Initial, &sc.Initial}, {"scoring.minimum", f.Minimum, &sc.Minimum}, {"scoring.decay", f.Decay, &sc.Decay}} {
		n, err := strconv.Atoi(strings.TrimSpace(x.typed))
		if err != nil {
			return sc, f, ctf.FieldErrorf(x.field, "must be a whole number")
		}
		*x.to = n
	}
	return sc, f, nil
}

// hintsOfForm reads the editor's hint rows (hintContent0, hintCost0, ...):
// a row with no text is left out (clearing a hint's text removes it); the
// rest are the challenge's hints in order, a row without an id getting
// the next free one. The rows returned are the ones kept, as typed, which
// the form shows again after a refusal: "hints[1]" of the use case's
// refusal is the second of them.
func hintsOfForm(r *http.Request) ([]ctf.Hint, []hintRow, error) {
	var rows []hintRow
	for i := 0; ; i++ {
		k := strconv.Itoa(i)
		content, ok := r.Form["hintContent"+k]
		if !ok {
			break
		}
		if strings.TrimSpace(content[0]) == "" {
			continue
		}
		rows = append(rows, hintRow{ID: strings.TrimSpace(r.FormValue("hintID" + k)), Content: content[0],
			Cost: r.FormValue("hintCost" + k), Requires: r.FormValue("hintRequires" + k)})
	}
	next := nextHintID(rows)
	var hints []ctf.Hint
	var first error
	refuse := func(i int, name, msg string) {
		if first == nil {
			first = ctf.FieldErrorf("hints["+strconv.Itoa(i)+"]."+name, "%s", msg)
		}
	}
	for i := range rows {
		row := &rows[i]
		if row.ID == "" {
			row.ID = strconv.Itoa(next)
			next++
		}
		h := ctf.Hint{Content: row.Content}
		var err error
		if h.ID, err = strconv.Atoi(row.ID); err != nil {
			refuse(i, "id", "must be a whole number")
		}
		if c := strings.TrimSpace(row.Cost); c != "" {
			if h.Cost, err = strconv.Atoi(c); err != nil {
				refuse(i, "cost", "must be a whole number of points")
			}
		}
		if q := strings.TrimSpace(row.Requires); q != "" {
			if h.Requires, err = strconv.Atoi(q); err != nil {
				refuse(i, "requires", "must be the id of an earlier hint")
			}
		}
		hints = append(hints, h)
	}
	if rows == nil {
		rows = []hintRow{} // read: not to be filled from the challenge again
	}
	return hints, rows, first
}
