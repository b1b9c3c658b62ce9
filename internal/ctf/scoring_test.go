package ctf

import (
	"math"
	"math/big"
	"testing"
)

// TestScoringValue: the two functions against values worked out by hand
// (and CTFd's formulas), at the edges: no solver and one solver are worth
// the initial value, the decay-th further solver reaches the minimum
// exactly, and nothing goes below it.
func TestScoringValue(t *testing.T) {
	logd := Scoring{Type: DynamicScoring, Initial: 500, Minimum: 100, Decay: 10, Function: Logarithmic}
	lin := Scoring{Type: DynamicScoring, Initial: 500, Minimum: 100, Decay: 30, Function: Linear}
	for _, tc := range []struct {
		name    string
		s       Scoring
		points  int
		solvers int
		want    int
	}{
		{"static is its points", Scoring{}, 300, 1000, 300},
		{"static named", Scoring{Type: StaticScoring}, 50, 3, 50},
		{"log, no solver", logd, 0, 0, 500},
		{"log, first solver", logd, 0, 1, 500},
		// 500 − 400 × 1/100 = 496
		{"log, second solver", logd, 0, 2, 496},
		// 500 − 400 × 25/100 = 400
		{"log, s=5", logd, 0, 6, 400},
		// 500 − 400 × 81/100 = 176
		{"log, s=9", logd, 0, 10, 176},
		{"log, s=decay is the minimum", logd, 0, 11, 100},
		{"log, past the decay", logd, 0, 5000, 100},
		// 500 − 400 × 9/49 = 426.53…, ceil 427
		{"log rounds up", Scoring{Type: DynamicScoring, Initial: 500, Minimum: 100, Decay: 7}, 0, 4, 427},
		// The example and CTFd's default-like numbers: 1000, 100,
		// decay 38: s=37 → 1000 − 900 × 1369/1444 = 146.74…, ceil 147.
		{"log, one before the minimum", Scoring{Type: DynamicScoring, Initial: 1000, Minimum: 100, Decay: 38, Function: Logarithmic}, 0, 38, 147},
		{"log, at the minimum", Scoring{Type: DynamicScoring, Initial: 1000, Minimum: 100, Decay: 38, Function: Logarithmic}, 0, 39, 100},
		{"linear, first solver", lin, 0, 1, 500},
		{"linear, s=1", lin, 0, 2, 470},
		{"linear, s=13", lin, 0, 14, 110},
		{"linear, floored", lin, 0, 15, 100},
		{"linear, far past", lin, 0, 1 << 40, 100},
		{"linear, no decay", Scoring{Type: DynamicScoring, Initial: 200, Minimum: 0, Decay: 0, Function: Linear}, 0, 99, 200},
		{"initial equals minimum", Scoring{Type: DynamicScoring, Initial: 100, Minimum: 100, Decay: 5}, 0, 3, 100},
		// 10⁶ − 10⁶ × 999999² / 10¹² = 10⁶ − 999998.000001 = 1.999999, ceil 2:
		// no overflow at the bounds.
		{"largest bounds", Scoring{Type: DynamicScoring, Initial: MaxScoringPoints, Minimum: 0, Decay: MaxDecay}, 0, MaxDecay, 2},
	} {
		if got := tc.s.Value(tc.points, tc.solvers); got != tc.want {
			t.Errorf("%s: Value(%d, %d) = %d, want %d", tc.name, tc.points, tc.solvers, got, tc.want)
		}
	}
}

// TestScoringValueNeverRises: with every valid shape, one more solver
// never raises the value, and it stays between the minimum and the initial
// value.
func TestScoringValueNeverRises(t *testing.T) {
	for _, f := range []DecayFunc{Logarithmic, Linear} {
		for _, decay := range []int{1, 2, 3, 7, 10, 38, 100} {
			for _, span := range [][2]int{{500, 100}, {1000, 1}, {37, 36}, {1, 0}} {
				s := Scoring{Type: DynamicScoring, Initial: span[0], Minimum: span[1], Decay: decay, Function: f}
				prev := s.Value(0, 0)
				for n := 1; n < 300; n++ {
					v := s.Value(0, n)
					if v > prev || v < s.Minimum || v > s.Initial {
						t.Fatalf("%+v: %d solvers worth %d after %d", s, n, v, prev)
					}
					prev = v
				}
			}
		}
	}
}

func TestValidateScoring(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     Scoring
		field string // "" when valid
	}{
		{"left out", Scoring{}, ""},
		{"static", Scoring{Type: StaticScoring}, ""},
		{"dynamic", Scoring{Type: DynamicScoring, Initial: 500, Minimum: 100, Decay: 20}, ""},
		{"linear", Scoring{Type: DynamicScoring, Initial: 500, Minimum: 100, Decay: 0, Function: Linear}, ""},
		{"static with numbers", Scoring{Type: StaticScoring, Initial: 5}, "scoring"},
		{"unknown type", Scoring{Type: "decaying"}, "scoring.type"},
		{"negative initial", Scoring{Type: DynamicScoring, Initial: -1, Decay: 1}, "scoring.initial"},
		{"huge initial", Scoring{Type: DynamicScoring, Initial: MaxScoringPoints + 1, Decay: 1}, "scoring.initial"},
		{"minimum above initial", Scoring{Type: DynamicScoring, Initial: 100, Minimum: 200, Decay: 1}, "scoring.minimum"},
		{"negative minimum", Scoring{Type: DynamicScoring, Initial: 100, Minimum: -5, Decay: 1}, "scoring.minimum"},
		{"log without decay", Scoring{Type: DynamicScoring, Initial: 100, Minimum: 5}, "scoring.decay"},
		{"huge decay", Scoring{Type: DynamicScoring, Initial: 100, Minimum: 5, Decay: MaxDecay + 1}, "scoring.decay"},
		{"negative linear decay", Scoring{Type: DynamicScoring, Initial: 100, Minimum: 5, Decay: -1, Function: Linear}, "scoring.decay"},
		{"unknown function", Scoring{Type: DynamicScoring, Initial: 100, Minimum: 5, Decay: 1, Function: "exponential"}, "scoring.function"},
	} {
		err := ValidateScoring(tc.s)
		var field string
		if e, ok := err.(*Error); ok {
			field = e.Field
		} else if err != nil {
			t.Fatalf("%s: %v is not a field error", tc.name, err)
		}
		if field != tc.field {
			t.Errorf("%s: error %v (field %q), want field %q", tc.name, err, field, tc.field)
		}
	}
}

// ctfdValue is CTFd's own computation (plugins/dynamic_challenges: the
// solve count less one, floating point, math.ceil, floored at the minimum).
func ctfdValue(s Scoring, solvers int) int {
	n := float64(max(solvers-1, 0))
	var v float64
	if s.Function == Linear {
		v = float64(s.Initial) - float64(s.Decay)*n
	} else {
		v = float64(s.Minimum-s.Initial)/float64(s.Decay*s.Decay)*n*n + float64(s.Initial)
	}
	return max(int(math.Ceil(v)), s.Minimum)
}

// exactValue is the formula in exact rational arithmetic.
func exactValue(s Scoring, solvers int) int {
	n := big.NewInt(int64(max(solvers-1, 0)))
	var v *big.Rat
	if s.Function == Linear {
		v = new(big.Rat).SetInt(new(big.Int).Sub(big.NewInt(int64(s.Initial)), new(big.Int).Mul(big.NewInt(int64(s.Decay)), n)))
	} else {
		drop := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(int64(s.Initial-s.Minimum)), new(big.Int).Mul(n, n)),
			big.NewInt(int64(s.Decay)*int64(s.Decay)))
		v = new(big.Rat).Sub(new(big.Rat).SetInt64(int64(s.Initial)), drop)
	}
	q, r := new(big.Int).QuoRem(v.Num(), v.Denom(), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1)) // ceil of a positive remainder
	}
	return max(int(q.Int64()), s.Minimum)
}

// TestScoringValueAgreesWithCTFd: over a grid of scorings and solver
// counts, Value is the exact formula, and CTFd's floating-point
// computation gives the same but where its rounding error crosses an
// integer (one point above, as at s = decay): those are counted and never
// more than one point apart.
func TestScoringValueAgreesWithCTFd(t *testing.T) {
	differ, total := 0, 0
	for _, f := range []DecayFunc{Logarithmic, Linear} {
		for _, span := range [][2]int{{500, 100}, {1000, 100}, {300, 50}, {100, 0}, {997, 13}} {
			for _, decay := range []int{1, 3, 7, 10, 20, 38, 49, 100, 333} {
				s := Scoring{Type: DynamicScoring, Initial: span[0], Minimum: span[1], Decay: decay, Function: f}
				for solvers := 0; solvers <= decay+3; solvers++ {
					got, exact, ctfd := s.Value(0, solvers), exactValue(s, solvers), ctfdValue(s, solvers)
					total++
					if got != exact {
						t.Fatalf("%+v with %d solvers: Value %d, exact %d", s, solvers, got, exact)
					}
					if ctfd != got {
						differ++
						if ctfd-got != 1 {
							t.Fatalf("%+v with %d solvers: CTFd's %d, ours %d", s, solvers, ctfd, got)
						}
					}
				}
			}
		}
	}
	t.Logf("%d of %d values differ from CTFd's floating point by its rounding error", differ, total)
}
