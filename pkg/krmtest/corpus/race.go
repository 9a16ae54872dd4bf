//go:build race

package corpus

// raceDetector: this test binary runs under -race.
const raceDetector = true
