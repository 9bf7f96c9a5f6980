package git

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// maxStderr bounds the stderr quoted by Error.Error.
const maxStderr = 2000

// Error is a git command that failed: the command, where it ran, how it
// ended and what git wrote to stderr, so callers can report what went wrong
// without re-running it.
type Error struct {
	// Args are git's arguments (without the -c settings every command gets).
	Args []string
	// Dir is the directory git ran in.
	Dir string
	// Err is how the process ended (an *exec.ExitError for a non-zero
	// status).
	Err error
	// Stderr is everything git wrote to stderr.
	Stderr string
}

// Error returns "git <args>: <how it ended>: <stderr>" (stderr trimmed and
// cut at 2000 bytes).
func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if len(msg) > maxStderr {
		msg = msg[:maxStderr] + "..."
	}
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, msg)
}

// Unwrap returns how the process ended.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is git's exit status, or -1 when it did not exit normally.
func (e *Error) ExitCode() int {
	var ee *exec.ExitError
	if errors.As(e.Err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// Stderr returns git's stderr when err is (or wraps) an *Error, else
// err's message; for messages that quote git's complaint alone.
func Stderr(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return strings.TrimSpace(e.Stderr)
	}
	return err.Error()
}
