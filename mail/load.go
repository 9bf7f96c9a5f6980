package mail

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"
)

// InputError is a message or file that could not be read or parsed.
// Everything else in the input is still processed.
type InputError struct {
	// Source is the file (or "-" for stdin) the message came from.
	Source string `json:"source"`
	// MessageID is the message's Message-ID, when it could be read.
	MessageID string `json:"message_id,omitempty"`
	// Line is the 1-based line of Source where the message starts (0 when
	// the error concerns the whole source).
	Line int `json:"line,omitempty"`
	// Index is the 1-based position of the message in Source (0 when the
	// error concerns the whole source).
	Index int `json:"index,omitempty"`
	// Err is the cause.
	Err error `json:"-"`
}

// Error implements error: "file:line: message N <id>: cause".
func (e *InputError) Error() string {
	if errors.Is(e.Err, ErrNoPatch) {
		return sanitize(e.Err.Error()) // "no patch found in FILE (...)"
	}
	s := e.Source
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Index > 0 {
		s += fmt.Sprintf(": message %d", e.Index)
	}
	var pe *ParseError
	if e.MessageID != "" && !errors.As(e.Err, &pe) {
		s += fmt.Sprintf(" <%s>", e.MessageID)
	}
	return s + ": " + sanitize(e.Err.Error())
}

// sanitize makes error text from hostile input safe to log on one line.
func sanitize(s string) string {
	s = strings.TrimSpace(s)
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || r == utf8.RuneError {
			return '?'
		}
		return r
	}, s)
}

// Unwrap returns the cause.
func (e *InputError) Unwrap() error { return e.Err }

// LoadOptions tune LoadWith.
type LoadOptions struct {
	// Thin drops what the analysis never reads from a parsed message: the
	// decoded Body of every message, and the commit message of mail that
	// carries no patch (no diff, not a cover letter), which keeps its
	// headers and trailers for threading. Memory then grows with the
	// patches in the input, not with the discussion around them.
	Thin bool
	// Fetched holds inputs already in memory, keyed by the argument that
	// names them (a Message-ID or URL whose thread was downloaded, see
	// package lore). Such a path is read as an mbox from memory and named
	// by its key in errors.
	Fetched map[string][]byte
}

// Load reads every message from paths (see ReadInputs: single patch files,
// with or without git format-patch's "From <sha>" line, mbox files,
// Maildir directories, or "-" for stdin) and parses it. Messages are
// returned in input order. Unreadable paths and messages that fail to
// parse become InputErrors naming the source, the message's line and
// index, and its Message-ID when known; everything else is still
// returned. Input is streamed: raw messages are parsed (on all CPUs) as
// they are read and never held all at once. ctx cancels it.
func Load(ctx context.Context, paths []string, stdin io.Reader) ([]*Message, []*InputError) {
	return LoadWith(ctx, paths, stdin, LoadOptions{})
}

// LoadWith is Load with options.
func LoadWith(ctx context.Context, paths []string, stdin io.Reader, opts LoadOptions) ([]*Message, []*InputError) {
	type slot struct {
		msg    *Message
		err    *InputError
		source string // the local file the message came from ("" if none)
		raw    string // the file (or input) the message came from
	}
	var (
		mu    sync.Mutex
		slots []slot
		wg    sync.WaitGroup
	)
	type job struct {
		i   int
		raw *Raw
	}
	workers := runtime.GOMAXPROCS(0)
	next := make(chan job, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p Parser
			for j := range next {
				var sl slot
				m, err := p.parseRaw(j.raw.Data)
				if err != nil {
					ie := &InputError{Source: j.raw.Source, Line: j.raw.Line, Index: j.raw.Index, Err: err}
					var pe *ParseError
					if errors.As(err, &pe) {
						ie.MessageID = pe.MessageID
					}
					sl.err = ie
				} else {
					if opts.Thin {
						m.thin()
					}
					sl.msg = m
				}
				mu.Lock()
				sl.source, sl.raw = slots[j.i].source, slots[j.i].raw
				slots[j.i] = sl
				mu.Unlock()
			}
		}()
	}
	srcErrs, err := readInputs(ctx, paths, stdin, opts.Fetched, func(r *Raw) error {
		source := r.Source
		if _, fetched := opts.Fetched[r.Input]; fetched || r.Input == "-" {
			source = ""
		}
		mu.Lock()
		i := len(slots)
		slots = append(slots, slot{source: source, raw: r.Source})
		mu.Unlock()
		// A Maildir message keeps its position in the directory as index
		// only when the error would not say it otherwise.
		if r.Source != r.Input {
			r.Index = 0
		}
		select {
		case next <- job{i, r}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(next)
	wg.Wait()
	if err != nil {
		srcErrs = append(srcErrs, &InputError{Source: "input", Err: err})
	}
	perFile, perRaw := map[string]int{}, map[string]int{}
	for _, sl := range slots {
		perFile[sl.source]++
		perRaw[sl.raw]++
	}
	var outM []*Message
	outE := srcErrs
	for _, sl := range slots {
		if sl.msg != nil {
			if sl.source != "" && perFile[sl.source] == 1 {
				sl.msg.File = sl.source
			}
			outM = append(outM, sl.msg)
		}
		var nm *notMailError
		if sl.err != nil && perRaw[sl.raw] == 1 && errors.As(sl.err.Err, &nm) {
			// The file's only "message" is no mail: say so, not why
			// its first line is no header.
			sl.err = noPatchInFile(sl.raw, nm)
		}
		if sl.err != nil {
			outE = append(outE, sl.err)
		}
	}
	return outM, outE
}

// thin drops the text the analysis does not read (see LoadOptions.Thin).
func (m *Message) thin() {
	m.Body = ""
	cover := m.Subject.Patch && m.Subject.Number == 0 && m.Subject.Total > 0
	if m.Diff == "" && !cover {
		m.CommitMsg = ""
	}
}
