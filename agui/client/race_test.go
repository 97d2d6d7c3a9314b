//go:build race

package client

// raceEnabled: the race detector changes allocation counts.
const raceEnabled = true
