//go:build race

package daemon

// raceEnabled: the tests run under the race detector (much slower), and
// the long ones run smaller.
const raceEnabled = true
