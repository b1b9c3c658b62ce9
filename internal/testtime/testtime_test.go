package testtime

import "testing"

func TestFactor(t *testing.T) {
	for _, tc := range []struct {
		s    string
		race bool
		want float64 // 0: an error
	}{
		{"", false, 1},
		{"", true, raceFactor},
		{"2.5", false, 2.5},
		{"1", true, 1}, // the setting wins over the race default
		{"0.5", false, 0},
		{"0", false, 0},
		{"-2", false, 0},
		{"NaN", false, 0},
		{"Inf", false, 0},
		{"two", false, 0},
	} {
		got, err := factor(tc.s, tc.race)
		if (err != nil) != (tc.want == 0) || got != tc.want {
			t.Errorf("factor(%q, race %v) = %v, %v; want %v", tc.s, tc.race, got, err, tc.want)
		}
	}
}
