//go:build !race

package daemon

// raceEnabled: the tests run under the race detector.
const raceEnabled = false
