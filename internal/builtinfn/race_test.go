//go:build race

package builtinfn

const raceEnabled = true
