//go:build race

package cli

// raceEnabled: the race detector slows every event down several times.
const raceEnabled = true
