//go:build !race

package agui

const raceEnabled = false
