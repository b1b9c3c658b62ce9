package ctf

// Scoring is how a challenge's value follows its solves (issue 21). The
// zero value is static: the value is the challenge's points. A dynamic
// challenge is worth Initial until its second player solver, then loses
// value with each further solver down to Minimum, by one of CTFd's two
// functions.
type Scoring struct {
	Type     ScoringType `json:"type"`
	Initial  int         `json:"initial,omitempty"`
	Minimum  int         `json:"minimum,omitempty"`
	Decay    int         `json:"decay,omitempty"`
	Function DecayFunc   `json:"function,omitempty"`
}

// ScoringType is static or dynamic.
type ScoringType string

// The scoring types.
const (
	StaticScoring  ScoringType = "static"
	DynamicScoring ScoringType = "dynamic"
)

// DecayFunc is the curve a dynamic value follows.
type DecayFunc string

// The decay functions: CTFd's. Logarithmic reaches the minimum at Decay
// solvers (a parabola in the solver count, flat at first); linear loses
// Decay points per solver.
const (
	Logarithmic DecayFunc = "logarithmic"
	Linear      DecayFunc = "linear"
)

// MaxDecay bounds Decay, so that the value's integer arithmetic cannot
// overflow (Initial is bounded by MaxScoringPoints).
const (
	MaxDecay         = 1_000_000
	MaxScoringPoints = 1_000_000
)

// IsDynamic reports whether the value follows the solves.
func (s Scoring) IsDynamic() bool { return s.Type == DynamicScoring }

// ValidateScoring checks a scoring an organiser entered: static (or left
// out) with nothing else, or dynamic with 0 ≤ minimum ≤ initial ≤
// 1,000,000, a known function (logarithmic when left out), and a decay of
// at least 1 for logarithmic (it divides) or at least 0 for linear.
func ValidateScoring(s Scoring) error {
	switch s.Type {
	case "", StaticScoring:
		if s.Initial != 0 || s.Minimum != 0 || s.Decay != 0 || s.Function != "" {
			return FieldErrorf("scoring", "is static: initial, minimum, decay and function belong to a dynamic scoring")
		}
		return nil
	case DynamicScoring:
	default:
		return FieldErrorf("scoring.type", "must be static or dynamic, not %q", s.Type)
	}
	switch {
	case s.Initial < 0 || s.Initial > MaxScoringPoints:
		return FieldErrorf("scoring.initial", "must be a whole number from 0 to %d", MaxScoringPoints)
	case s.Minimum < 0 || s.Minimum > s.Initial:
		return FieldErrorf("scoring.minimum", "must be a whole number from 0 to the initial value (%d)", s.Initial)
	}
	switch s.Function {
	case "", Logarithmic:
		if s.Decay < 1 || s.Decay > MaxDecay {
			return FieldErrorf("scoring.decay", "must be the number of solvers that reach the minimum, from 1 to %d", MaxDecay)
		}
	case Linear:
		if s.Decay < 0 || s.Decay > MaxDecay {
			return FieldErrorf("scoring.decay", "must be the points lost per solver, from 0 to %d", MaxDecay)
		}
	default:
		return FieldErrorf("scoring.function", "must be logarithmic or linear, not %q", s.Function)
	}
	return nil
}

// Value is a dynamic challenge's value with solvers player solvers, or
// points for a static one. With s = solvers − 1 (0 for no solver):
// logarithmic ceil(initial + (minimum − initial) / decay² × s²), linear
// initial − decay × s, both floored at the minimum. It is computed in
// integers, so that at s = decay the logarithmic value is the minimum
// exactly (floating point can land one above it).
func (s Scoring) Value(points, solvers int) int {
	if !s.IsDynamic() {
		return points
	}
	n := max(solvers-1, 0)
	var v int
	if s.Function == Linear {
		if s.Decay > 0 && n >= (s.Initial-s.Minimum+s.Decay-1)/s.Decay+1 {
			return s.Minimum // n × decay would only pass the minimum (and may overflow)
		}
		v = s.Initial - s.Decay*n
	} else {
		if s.Decay < 1 || n >= s.Decay {
			return s.Minimum
		}
		// ceil(initial − drop × n² / decay²) = initial − floor(drop × n² / decay²),
		// the drop ≥ 0; n < decay ≤ 10⁶ and drop ≤ 10⁶ keep the product under 10¹⁸.
		drop := int64(s.Initial - s.Minimum)
		v = s.Initial - int(drop*int64(n)*int64(n)/(int64(s.Decay)*int64(s.Decay)))
	}
	return max(v, s.Minimum)
}

// NormalizeScoring checks c's scoring and hints and puts the scoring in
// its one form: static is the zero value; a dynamic one names its
// function (logarithmic when left out), and c's points are its initial
// value (what the challenge is worth before its second solver).
func NormalizeScoring(c *Challenge) error {
	if err := ValidateScoring(c.Scoring); err != nil {
		return err
	}
	if err := ValidateHints(c.Hints); err != nil {
		return err
	}
	if !c.Scoring.IsDynamic() {
		c.Scoring = Scoring{}
		return nil
	}
	if c.Scoring.Function == "" {
		c.Scoring.Function = Logarithmic
	}
	c.Points = c.Scoring.Initial
	return nil
}
