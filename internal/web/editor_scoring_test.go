package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/google/go-cmp/cmp"
)

// TestEditorSavesDynamicScoringAndHints: the editor's Scoring fieldset
// makes a challenge dynamic (its points then follow the initial value)
// and its Hints fieldset saves the rows typed, empty rows left out, with
// ids from 1; on edit the ids stay, a new row takes the next free id, a
// row whose text is cleared is removed, and static scoring comes back.
func TestEditorSavesDynamicScoringAndHints(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root := logIn(t, s, "root")
	form := root.get("/admin/challenges/new")
	want(t, "the new form", form, 200, "<legend>Scoring</legend>", `<input type="radio" name="scoring" value="static" checked> Static`,
		`<input type="radio" name="scoring" value="dynamic" > Dynamic`, `name="scoringInitial"`, `<option selected>logarithmic</option>`,
		"Decay: the number of solvers at which a logarithmic challenge reaches its minimum; for linear, the points lost per solver.",
		"<legend>Hints</legend>", `<input type="hidden" name="hintID0" value="1">`, `<input type="hidden" name="hintID1" value="2">`,
		`Hint 1 <span class="hint">id 1</span> <textarea name="hintContent0"`, `<span class="sr">of hint 2</span>`)

	fields := map[string]string{"title": "Sliding", "categories": "misc", "difficulty": "Easy", "points": "77",
		"flagKind0": "static", "flagContent0": "flag{slide}", "hidden": "0",
		"scoring": "dynamic", "scoringInitial": "500", "scoringMinimum": "100", "scoringDecay": "20", "scoringFunction": "linear",
		"hintID0": "1", "hintContent0": "First **nudge**.", "hintCost0": "30",
		"hintID1": "2", "hintContent1": "  ", "hintCost1": "5", // an empty row: left out
		"hintID2": "3", "hintContent2": "Second nudge.", "hintCost2": "", "hintRequires2": "1"}
	created := root.follow("create", root.multipartPost("/admin/challenges", fields, "", "", nil))
	want(t, "created", created, 200, "Challenge created.", `<input type="radio" name="scoring" value="dynamic" checked> Dynamic`,
		`name="scoringInitial" type="number" min="0" value="500"`, `name="scoringMinimum" type="number" min="0" value="100"`,
		`name="scoringDecay" type="number" min="0" value="20"`, `<option selected>linear</option>`,
		`<input type="hidden" name="hintID0" value="1">`, ">First **nudge**.</textarea>", `name="hintCost0" type="number" min="0" value="30"`,
		`<input type="hidden" name="hintID1" value="3">`, ">Second nudge.</textarea>", `name="hintRequires1" type="number" min="1" value="1"`,
		`<input type="hidden" name="hintID2" value="4">`, `<input type="hidden" name="hintID3" value="5">`)
	in, err := s.Svc.Content.ChallengeForEdit(context.Background(), ctf.Operator, "sliding")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ctf.Scoring{Type: ctf.DynamicScoring, Initial: 500, Minimum: 100, Decay: 20, Function: ctf.Linear}, in.Scoring); d != "" || in.Points != 500 {
		t.Errorf("the scoring saved (points %d): %s", in.Points, d)
	}
	if d := cmp.Diff([]ctf.Hint{{ID: 1, Content: "First **nudge**.", Cost: 30}, {ID: 3, Content: "Second nudge.", Requires: 1}}, in.Hints); d != "" {
		t.Errorf("the hints saved: %s", d)
	}
	want(t, "players see it dynamic", root.get("/challenges/sliding"), 200, "Dynamic: worth 500, down to 100 as more players solve it.")

	// Edit: the first hint's text cleared (removed, and the second no
	// longer requires it), a new one in a blank row, static again.
	fields = map[string]string{"id": editorID(t, root, "sliding"), "saved": "sliding", "title": "Sliding", "categories": "misc", "difficulty": "Easy",
		"points": "250", "flagKind0": "static", "flagContent0": "flag{slide}", "hidden": "0",
		"scoring": "static", "scoringInitial": "500", "scoringMinimum": "100", "scoringDecay": "20", "scoringFunction": "linear",
		"hintID0": "1", "hintContent0": "", "hintCost0": "30",
		"hintID1": "3", "hintContent1": "Second nudge.", "hintCost1": "0", "hintRequires1": "",
		"hintID2": "4", "hintContent2": "Third nudge.", "hintCost2": "15", "hintRequires2": "3",
		"hintContent3": "Fourth, with no id.", "hintCost3": "1"}
	want(t, "saved", root.follow("save", root.multipartPost("/admin/challenges", fields, "", "", nil)), 200, "Changes saved.",
		`<input type="radio" name="scoring" value="static" checked> Static`, `<input name="points" type="number" min="0" value="250">`)
	in, _ = s.Svc.Content.ChallengeForEdit(context.Background(), ctf.Operator, "sliding")
	if d := cmp.Diff([]ctf.Hint{{ID: 3, Content: "Second nudge."}, {ID: 4, Content: "Third nudge.", Cost: 15, Requires: 3},
		{ID: 5, Content: "Fourth, with no id.", Cost: 1}}, in.Hints); d != "" || in.Scoring.IsDynamic() || in.Points != 250 {
		t.Errorf("after the edit: points %d, scoring %+v, hints %s", in.Points, in.Scoring, d)
	}
	if strings.Contains(root.get("/challenges/sliding").body, "Dynamic:") {
		t.Error("a static challenge is still said to be dynamic")
	}
}

// TestEditorRefusesBadScoringAndHints: a scoring or a hint the rules
// refuse is said as a sentence naming the field in words (a hint by its
// row), the field is marked, everything typed stays, and nothing is
// saved.
func TestEditorRefusesBadScoringAndHints(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root := logIn(t, s, "root")
	base := func() map[string]string {
		return map[string]string{"title": "Refused", "categories": "misc", "difficulty": "Easy", "points": "50",
			"flagKind0": "static", "flagContent0": "flag{no}", "hidden": "1",
			"scoring": "dynamic", "scoringInitial": "500", "scoringMinimum": "100", "scoringDecay": "20", "scoringFunction": "logarithmic",
			"hintID0": "1", "hintContent0": "Kept **hint**.", "hintCost0": "10",
			"hintID1": "2", "hintContent1": "Kept second.", "hintCost1": "5", "hintRequires1": "1"}
	}
	for _, tc := range []struct {
		label, field, value, sentence, marked string
	}{
		{"a minimum above the initial value", "scoringMinimum", "600",
			"The minimum value must be a whole number from 0 to the initial value (500).", `name="scoringMinimum" type="number" min="0" value="600" aria-invalid="true"`},
		{"an initial value that is no number", "scoringInitial", "lots",
			"The initial value must be a whole number.", `name="scoringInitial" type="number" min="0" value="lots" aria-invalid="true"`},
		{"a logarithmic decay of 0", "scoringDecay", "0",
			"The decay must be the number of solvers that reach the minimum, from 1 to 1000000.", `value="0" aria-describedby="decay-hint" aria-invalid="true"`},
		{"an unknown function", "scoringFunction", "cubic", "The decay function must be logarithmic or linear, not &#34;cubic&#34;.", `name="scoringFunction" aria-invalid="true"`},
		{"a negative cost", "hintCost1", "-5",
			"Hint 2: the cost must be a whole number of points from 0 to 1000000.", `name="hintCost1" type="number" min="0" value="-5" aria-invalid="true"`},
		{"a cost that is no number", "hintCost0", "ten", "Hint 1: the cost must be a whole number of points.", `value="ten" aria-invalid="true"`},
		{"a requirement of no earlier hint", "hintRequires1", "9",
			"Hint 2: the hint it requires must be the id of an earlier hint of the challenge, not 9.", `name="hintRequires1" type="number" min="1" value="9" aria-invalid="true"`},
	} {
		fields := base()
		fields[tc.field] = tc.value
		want(t, tc.label, root.multipartPost("/admin/challenges", fields, "", "", nil), 400,
			`<p class="alert error" role="alert">`+tc.sentence+`</p>`, tc.marked, `value="Refused"`, ">Kept **hint**.</textarea>",
			">Kept second.</textarea>", `<input type="radio" name="scoring" value="dynamic" checked> Dynamic`, "<h1>New challenge</h1>")
	}
	if _, err := s.Svc.Content.ChallengeForEdit(context.Background(), ctf.Operator, "refused"); err == nil {
		t.Error("a refused form saved the challenge")
	}
}
