// Package testtime scales the deadlines tests wait under, so that one
// setting stretches all of them on a slow or shared machine instead of
// each test guessing its own margin. It is imported only by tests.
//
//	FLAGSHIP_TEST_TIMEOUT_FACTOR  a number ≥ 1 the deadlines are multiplied
//	                              by; by default 1, or raceFactor in a
//	                              binary built with -race
//
// Scale only what a test waits for (a change to reach another replica, a
// server to come up, a webhook to be delivered), never a bound the test
// asserts as the behaviour under test or a timeout meant to expire.
package testtime

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"time"
)

// FactorEnv is the environment variable that sets the factor.
const FactorEnv = "FLAGSHIP_TEST_TIMEOUT_FACTOR"

// raceFactor is the default under the race detector, which slows code
// two- to twentyfold and most where goroutines share memory, as the
// replicas' appliers do.
const raceFactor = 3

// Factor returns what deadlines are multiplied by. It panics on a value of
// FLAGSHIP_TEST_TIMEOUT_FACTOR that is not a number ≥ 1: a mistyped
// setting must not pass unnoticed, and a factor below 1 would make tests
// flaky rather than fast.
var Factor = sync.OnceValue(func() float64 {
	f, err := factor(os.Getenv(FactorEnv), raceEnabled)
	if err != nil {
		panic(err)
	}
	return f
})

// factor reads the setting s, defaulting by whether the race detector is
// on.
func factor(s string, race bool) (float64, error) {
	if s == "" {
		if race {
			return raceFactor, nil
		}
		return 1, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 1) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s=%q: want a number ≥ 1", FactorEnv, s)
	}
	return f, nil
}

// Scale returns d multiplied by Factor.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Factor())
}
