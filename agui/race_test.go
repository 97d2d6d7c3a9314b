//go:build race

package agui

// raceEnabled: the race detector changes allocation counts.
const raceEnabled = true
