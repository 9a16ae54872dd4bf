//go:build race

package bounded

const raceEnabled = true
