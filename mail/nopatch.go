package mail

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrNoPatch is the cause of an InputError for a file that is no patch at
// all: neither mail, an mbox nor a diff (a binary, a text file).
var ErrNoPatch = errors.New("no patch found")

// notMailError is a message whose header could not be read; binary says
// it is not even text.
type notMailError struct {
	err    error
	binary bool
}

func (e *notMailError) Error() string { return "reading header: " + e.err.Error() }

func (e *notMailError) Unwrap() error { return e.err }

// newNotMailError wraps the header error of raw.
func newNotMailError(raw []byte, err error) error {
	head := raw[:min(len(raw), 4096)]
	binary := bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(trimPartialRune(head))
	return &notMailError{err: err, binary: binary}
}

// trimPartialRune drops a rune cut at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}

// noPatchInFile returns the InputError for source, a file whose only
// message failed as nm: it is no patch.
func noPatchInFile(source string, nm *notMailError) *InputError {
	what := "text that is neither mail, an mbox nor a diff"
	if nm.binary {
		what = "binary data"
	}
	return &InputError{Source: source, Err: fmt.Errorf("%w in %s (%s)", ErrNoPatch, source, what)}
}
