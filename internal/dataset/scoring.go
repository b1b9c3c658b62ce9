package dataset

import (
	"errors"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"go.yaml.in/yaml/v3"
)

// Scoring is a challenge's scoring as a dataset writes it (ctf.Scoring):
// left out (nil) or {type: static} for static points, or {type: dynamic,
// initial, minimum, decay, function}. A dynamic challenge's points are
// its initial value: either may be left out for the other.
type Scoring struct {
	Type     ctf.ScoringType `json:"type" yaml:"type"`
	Initial  int             `json:"initial,omitempty" yaml:"initial,omitempty"`
	Minimum  int             `json:"minimum,omitempty" yaml:"minimum,omitempty"`
	Decay    int             `json:"decay,omitempty" yaml:"decay,omitempty"`
	Function ctf.DecayFunc   `json:"function,omitempty" yaml:"function,omitempty"` // logarithmic (default) | linear
}

// Of is s as the platform keeps it (static for nil).
func (s *Scoring) Of() ctf.Scoring {
	if s == nil {
		return ctf.Scoring{}
	}
	return ctf.Scoring{Type: s.Type, Initial: s.Initial, Minimum: s.Minimum, Decay: s.Decay, Function: s.Function}
}

// ScoringOf is s as a dataset writes it: nil for static.
func ScoringOf(s ctf.Scoring) *Scoring {
	if !s.IsDynamic() {
		return nil
	}
	return &Scoring{Type: s.Type, Initial: s.Initial, Minimum: s.Minimum, Decay: s.Decay, Function: s.Function}
}

func (s *Scoring) dynamic() bool { return s != nil && s.Type == ctf.DynamicScoring }

// Hint is a hint of a challenge (ctf.Hint). Its id, when left out, is its
// position in the list (1, 2, ...); a hint may be given as its Markdown
// text alone (a free hint, as ctfcli writes one).
type Hint struct {
	ID       int    `json:"id" yaml:"id"`
	Content  string `json:"content" yaml:"content"` // Markdown, shown once unlocked
	Cost     int    `json:"cost" yaml:"cost"`       // points; 0 for a free hint
	Requires int    `json:"requires,omitempty" yaml:"requires,omitempty"`
}

// HintsOf are hints as a dataset writes them.
func HintsOf(hints []ctf.Hint) []Hint {
	var out []Hint
	for _, h := range hints {
		out = append(out, Hint{ID: h.ID, Content: h.Content, Cost: h.Cost, Requires: h.Requires})
	}
	return out
}

// DomainHints are hints as the platform keeps them.
func DomainHints(hints []Hint) []ctf.Hint {
	var out []ctf.Hint
	for _, h := range hints {
		out = append(out, ctf.Hint{ID: h.ID, Content: h.Content, Cost: h.Cost, Requires: h.Requires})
	}
	return out
}

// HintUnlock is a player's unlock of a hint: the user, the challenge's
// slug and the hint's id. Charged says whether the hint's cost is taken
// from the player's solve of the challenge; left out, it is whether the
// player had not solved the challenge at At (no solve of theirs at or
// before it, in the dataset or the database), as a live unlock decides.
// A load names each unlock once by user, challenge and hint.
type HintUnlock struct {
	User      string     `json:"user" yaml:"user"`           // username
	Challenge string     `json:"challenge" yaml:"challenge"` // slug
	Hint      int        `json:"hint" yaml:"hint"`           // the hint's id in the challenge
	At        *time.Time `json:"at,omitempty" yaml:"at,omitempty"`
	Charged   *bool      `json:"charged,omitempty" yaml:"charged,omitempty"`

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}

// scoringDraft is a scoring being decoded: whether initial was given, so
// that a dynamic challenge's points can stand for it.
type scoringDraft struct {
	Scoring
	initialGiven bool
}

var scoringFields = newMapping(rejectUnknown, nil,
	asLower("type", func(s *scoringDraft) *string { return (*string)(&s.Type) }),
	field[scoringDraft]{"initial", func(d *decoder, s *scoringDraft, v *yaml.Node, path string) {
		s.Initial, _ = d.integer(v, path)
		s.initialGiven = true
	}},
	asInt("minimum", func(s *scoringDraft) *int { return &s.Minimum }),
	asInt("decay", func(s *scoringDraft) *int { return &s.Decay }),
	asLower("function", func(s *scoringDraft) *string { return (*string)(&s.Function) }),
)

// ctfcliExtra is ctfcli's extra mapping: the fields CTFd's dynamic
// challenge takes (ctfcli passes them to CTFd as they are).
type ctfcliExtra struct {
	given                   bool
	initial, minimum, decay *int
	function                string
}

// extraFields read ctfcli's extra: a dynamic challenge's {initial, decay,
// minimum, function}; its other keys belong to other challenge types.
var extraFields = newMapping(ignoreUnknown, nil,
	extraInt("initial", func(e *ctfcliExtra) **int { return &e.initial }),
	extraInt("decay", func(e *ctfcliExtra) **int { return &e.decay }),
	extraInt("minimum", func(e *ctfcliExtra) **int { return &e.minimum }),
	asLower("function", func(e *ctfcliExtra) *string { return &e.function }),
)

func extraInt(key string, at func(*ctfcliExtra) **int) field[ctfcliExtra] {
	return field[ctfcliExtra]{key, func(d *decoder, e *ctfcliExtra, v *yaml.Node, path string) {
		if p, ok := d.integer(v, path); ok {
			*at(e) = &p
		}
	}}
}

// scoring settles c's scoring and points once its keys are read. ctfcli's
// form (type: dynamic with extra) becomes a dynamic scoring; CTFd takes a
// dynamic challenge's value from extra.initial (ctfcli's mirror writes the
// current value as value), so extra.initial wins over value. Flagship's
// form gives points or scoring.initial or both (Validate checks that they
// agree). pointsGiven reports whether the points are known.
func (d *decoder) scoring(c *challengeDraft, draft *scoringDraft) (pointsGiven bool) {
	_, pointsGiven = c.givenBy["points"]
	e := c.extra
	if e.given && strings.EqualFold(c.Type, string(ctf.DynamicScoring)) {
		if draft != nil {
			d.fail("extra", "scoring and extra both give a dynamic scoring; use one")
			return true
		}
		s := ctf.Scoring{Type: ctf.DynamicScoring, Function: ctf.DecayFunc(e.function)}
		switch {
		case e.initial != nil:
			s.Initial, pointsGiven = *e.initial, true
		case pointsGiven:
			s.Initial = c.Points
		}
		if e.minimum != nil {
			s.Minimum = *e.minimum
		}
		if e.decay != nil {
			s.Decay = *e.decay
		}
		var ce *ctf.Error
		if err := ctf.ValidateScoring(s); errors.As(err, &ce) {
			// Named as the file names it: extra.decay, not scoring.decay.
			d.fail(strings.Replace(ce.Field, "scoring.", "extra.", 1), "%s", strings.TrimPrefix(ce.Message, ce.Field+" "))
			return true
		}
		c.Points, c.Scoring = s.Initial, ScoringOf(s)
		return pointsGiven
	}
	if e.initial != nil && !pointsGiven {
		c.Points, pointsGiven = *e.initial, true
	}
	if draft == nil {
		return pointsGiven
	}
	c.Scoring = &draft.Scoring
	if draft.Type == ctf.DynamicScoring {
		switch {
		case draft.initialGiven && !pointsGiven:
			c.Points, pointsGiven = draft.Initial, true
		case !draft.initialGiven && pointsGiven:
			c.Scoring.Initial = c.Points
		}
	}
	return pointsGiven
}

// hintDraft is a hint being decoded: whether its id was given.
type hintDraft struct {
	Hint
	idGiven bool
}

// hintFields are those of a hint given as a mapping; a ctfcli file's
// other keys (CTFd's title, requirements) are ignored.
var hintFields = newMapping(rejectUnlessCtfcli, nil,
	field[hintDraft]{"id", func(d *decoder, h *hintDraft, v *yaml.Node, path string) {
		h.ID, _ = d.integer(v, path)
		h.idGiven = true
	}},
	asText("content", func(h *hintDraft) *string { return &h.Content }),
	asInt("cost", func(h *hintDraft) *int { return &h.Cost }),
	asInt("requires", func(h *hintDraft) *int { return &h.Requires }),
)

// hints reads a challenge's hints: each a mapping, or a string (a free
// hint); a hint without an id has its position (1, 2, ...).
func (d *decoder) hints(n *yaml.Node, field string) []Hint {
	var out []Hint
	for i, h := range scalarsOrMappings(d, n, field, hintFields, func(h *hintDraft) *string { return &h.Content }) {
		if !h.idGiven {
			h.ID = i + 1
		}
		out = append(out, h.Hint)
	}
	return out
}

var hintUnlockFields = newMapping(rejectUnknown, nil,
	asName("user", func(h *HintUnlock) *string { return &h.User }),
	asName("challenge", func(h *HintUnlock) *string { return &h.Challenge }),
	asInt("hint", func(h *HintUnlock) *int { return &h.Hint }),
	asTime("at", func(h *HintUnlock) **time.Time { return &h.At }),
	field[HintUnlock]{"charged", func(d *decoder, h *HintUnlock, v *yaml.Node, path string) {
		if !isNull(v) {
			b := d.boolean(v, path)
			h.Charged = &b
		}
	}},
)

func (d *decoder) hintUnlock(n *yaml.Node, src Source) HintUnlock {
	h := HintUnlock{Source: src}
	hintUnlockFields.decode(d, n, "", &h)
	return h
}

// scoringAndHints checks challenge i's scoring and hints (ctf's rules, so
// that the load cannot refuse what Validate let through), and that a
// dynamic challenge's points are its initial value.
func (v *validator) scoringAndHints(i int, c *Challenge) {
	const k = "challenges"
	v.rule(k, i, "", ctf.ValidateScoring(c.Scoring.Of()))
	v.rule(k, i, "", ctf.ValidateHints(DomainHints(c.Hints)))
	if c.Scoring.dynamic() && c.Points != c.Scoring.Initial {
		v.add(k, i, "points", "%d and scoring.initial %d differ: a dynamic challenge's points are its initial value; give one of them",
			c.Points, c.Scoring.Initial)
	}
}

// hintUnlocks checks the unlocks: a user, a challenge and a hint each,
// the hint one of the challenge's when the dataset gives the challenge
// (the loader checks one of the database's), each unlock once.
func (v *validator) hintUnlocks() {
	if len(v.d.HintUnlocks) == 0 {
		return
	}
	hints := make(map[string][]Hint, len(v.d.Challenges))
	for _, c := range v.d.Challenges {
		hints[c.Slug] = c.Hints
	}
	type key struct {
		pair
		hint int
	}
	seen := map[key]int{}
	for i, h := range v.d.HintUnlocks {
		const k = "hintUnlocks"
		v.userChallenge(k, i, h.User, h.Challenge)
		if h.Hint < 1 {
			v.add(k, i, "hint", "required: the id of a hint of the challenge")
			continue
		}
		if list, ok := hints[h.Challenge]; ok && !hasHint(list, h.Hint) {
			v.add(k, i, "hint", "challenge %q has no hint %d", h.Challenge, h.Hint)
		}
		kk := key{pair{h.User, h.Challenge}, h.Hint}
		if j, ok := seen[kk]; ok {
			v.add(k, i, "hint", "duplicate unlock: user %q already unlocked hint %d of %q (%s)", h.User, h.Hint, h.Challenge, v.also(k, j))
			continue
		}
		seen[kk] = i
	}
}

func hasHint(hints []Hint, id int) bool {
	for _, h := range hints {
		if h.ID == id {
			return true
		}
	}
	return false
}
