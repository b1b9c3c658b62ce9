//go:build race

package testtime

const raceEnabled = true
