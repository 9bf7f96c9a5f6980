package diffcheck

import "fmt"

// Error is a problem with a diff at a known line. Line is 1-based and
// counts lines of the diff text given to Parse (the caller adds the
// Message-ID and, if it wants, the offset of the diff in its message).
type Error struct {
	// Line is the 1-based line of the diff text; 0 when unknown.
	Line int
	// File is the path of the file diff concerned, when known (set for
	// apply errors).
	File string
	// Err is the underlying problem.
	Err error
}

// Error renders "diff line N: cause".
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("diff line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("diff: %v", e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func errorf(line int, format string, args ...any) *Error {
	return &Error{Line: line, Err: fmt.Errorf(format, args...)}
}
