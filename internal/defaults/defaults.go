// Package defaults fills unset settings from their documented defaults.
// Every count, duration and string of the configuration follows one rule:
// 0 (or "", or a key left out of the file) is the default that config.yaml
// documents; where a setting can be turned off, a negative value turns it
// off (retries: -1 is no retries), and the owning package says so.
package defaults

import "cmp"

// Fill sets *p to d when *p is unset: zero, negative, or "".
func Fill[T cmp.Ordered](p *T, d T) {
	var zero T
	if *p <= zero {
		*p = d
	}
}

// Count resolves a count that can be turned off, such as retries: 0 is
// d, a negative value is 0 (none).
func Count(n, d int) int {
	switch {
	case n == 0:
		return d
	case n < 0:
		return 0
	}
	return n
}
