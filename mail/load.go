package mail

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
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

// rawMsg is one message waiting to be parsed.
type rawMsg struct {
	source string
	line   int
	index  int
	data   []byte
}

// Load reads every message from paths: single patch files (git
// format-patch output, with or without the "From <sha>" line), mbox files
// (one or many messages), Maildir directories (cur/ and new/), or "-" for
// stdin. Messages are returned in input order. Unreadable files and
// messages that fail to parse become InputErrors naming the source, the
// message's line and index, and its Message-ID when known; everything else
// is still returned. Parsing runs on all CPUs; ctx cancels it.
func Load(ctx context.Context, paths []string, stdin io.Reader) ([]*Message, []*InputError) {
	var (
		raws []rawMsg
		errs []*InputError
	)
	for _, p := range paths {
		if ctx.Err() != nil {
			errs = append(errs, &InputError{Source: p, Err: ctx.Err()})
			break
		}
		r, e := collect(p, stdin)
		raws = append(raws, r...)
		errs = append(errs, e...)
	}
	msgs, perrs := parseAll(ctx, raws)
	return msgs, append(errs, perrs...)
}

// collect splits one input path into raw messages.
func collect(path string, stdin io.Reader) ([]rawMsg, []*InputError) {
	if path == "-" {
		if stdin == nil {
			return nil, []*InputError{{Source: "-", Err: errors.New("no standard input")}}
		}
		return splitStream(path, stdin)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, []*InputError{{Source: path, Err: err}}
	}
	if fi.IsDir() {
		return readMaildir(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, []*InputError{{Source: path, Err: err}}
	}
	defer f.Close()
	return splitStream(path, f)
}

// splitStream splits an mbox or single-message stream.
func splitStream(source string, r io.Reader) ([]rawMsg, []*InputError) {
	var out []rawMsg
	idx := 0
	err := ReadMbox(r, func(raw []byte, line int) error {
		idx++
		out = append(out, rawMsg{source: source, line: line, index: idx, data: raw})
		return nil
	})
	if err != nil {
		return out, []*InputError{{Source: source, Err: err}}
	}
	if len(out) == 0 {
		return nil, []*InputError{{Source: source, Err: errors.New("no messages")}}
	}
	return out, nil
}

// readMaildir reads the messages of a Maildir (cur/ and new/; tmp/ holds
// messages still being delivered and is skipped).
func readMaildir(dir string) ([]rawMsg, []*InputError) {
	var (
		out  []rawMsg
		errs []*InputError
		seen bool
	)
	for _, sub := range []string{"cur", "new"} {
		d := filepath.Join(dir, sub)
		entries, err := os.ReadDir(d)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			errs = append(errs, &InputError{Source: d, Err: err})
			continue
		}
		seen = true
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			if e.Type().IsRegular() && e.Name()[0] != '.' {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, n := range names {
			p := filepath.Join(d, n)
			data, err := readCapped(p)
			if err != nil {
				errs = append(errs, &InputError{Source: p, Err: err})
				continue
			}
			out = append(out, rawMsg{source: p, line: 1, data: data})
		}
	}
	if !seen && len(errs) == 0 {
		errs = append(errs, &InputError{Source: dir, Err: errors.New("directory is not a Maildir (no cur/ or new/)")})
	}
	return out, errs
}

// readCapped reads a file, keeping at most MaxMessageSize+1 bytes.
func readCapped(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxMessageSize+1))
}

// parseAll parses raws in parallel, keeping input order.
func parseAll(ctx context.Context, raws []rawMsg) ([]*Message, []*InputError) {
	msgs := make([]*Message, len(raws))
	errs := make([]*InputError, len(raws))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(raws)))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p Parser
			for i := range next {
				rm := raws[i]
				m, err := p.parseRaw(rm.data)
				if err != nil {
					ie := &InputError{Source: rm.source, Line: rm.line, Index: rm.index, Err: err}
					var pe *ParseError
					if errors.As(err, &pe) {
						ie.MessageID = pe.MessageID
					}
					errs[i] = ie
					continue
				}
				msgs[i] = m
			}
		}()
	}
	for i := range raws {
		if ctx.Err() != nil {
			errs[i] = &InputError{Source: raws[i].source, Line: raws[i].line, Index: raws[i].index, Err: ctx.Err()}
			continue
		}
		next <- i
	}
	close(next)
	wg.Wait()
	var outM []*Message
	var outE []*InputError
	for i := range raws {
		if msgs[i] != nil {
			outM = append(outM, msgs[i])
		}
		if errs[i] != nil {
			outE = append(outE, errs[i])
		}
	}
	return outM, outE
}
