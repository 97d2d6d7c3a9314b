//go:build race

package server_test

// raceEnabled: the race detector changes allocation counts.
const raceEnabled = true
