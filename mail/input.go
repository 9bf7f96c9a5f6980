package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// Raw is one unparsed message read from an input path.
type Raw struct {
	// Input is the path as given (an mbox, a single message, a Maildir or
	// "-" for standard input).
	Input string
	// Source is the file the message was read from: Input itself, or the
	// message file inside a Maildir.
	Source string
	// Line is the 1-based line of Source where the message starts.
	Line int
	// Index is the 1-based position of the message in Input.
	Index int
	// Data is the message, at most MaxMessageSize+1 bytes (a longer one
	// was cut and fails to parse as too large).
	Data []byte
}

// ErrNotRegular is the cause of an InputError for a path that is not a
// regular file or directory (a FIFO, a device, a socket) or, inside a
// Maildir, a symbolic link: reading it could block forever or never end.
var ErrNotRegular = errors.New("not a regular file; skipped")

// ReadInputs streams the messages of paths to fn in input order, one at a
// time: memory is bounded by the largest message, not by the input. A path
// is a single message or mbox file, a Maildir (its cur/ and new/; tmp/ holds
// messages still being delivered), or "-" for stdin. Symbolic links given
// as paths are followed, but only to regular files and directories; inside
// a Maildir only regular files are read (FIFOs, devices and symbolic links
// are skipped). Files are opened without blocking, so a FIFO never hangs
// the read. A path that is missing, unreadable or of the wrong kind is an
// InputError naming it, and the other paths are still read. ReadInputs
// stops at the first error of fn, or when ctx is done, and returns it with
// the input errors met so far.
func ReadInputs(ctx context.Context, paths []string, stdin io.Reader, fn func(*Raw) error) ([]*InputError, error) {
	return readInputs(ctx, paths, stdin, nil, fn)
}

// readInputs is ReadInputs where paths found in mem are read from memory
// (see LoadOptions.Fetched).
func readInputs(ctx context.Context, paths []string, stdin io.Reader, mem map[string][]byte, fn func(*Raw) error) ([]*InputError, error) {
	var errs []*InputError
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return errs, err
		}
		var (
			e   []*InputError
			err error
		)
		if data, ok := mem[p]; ok {
			e, err = readStream(ctx, p, p, bytes.NewReader(data), fn)
		} else {
			e, err = readInput(ctx, p, stdin, fn)
		}
		errs = append(errs, e...)
		if err != nil {
			return errs, err
		}
	}
	return errs, nil
}

// stopErr wraps an error of the callback (or ctx) so that it ends the
// whole read instead of becoming an InputError.
type stopErr struct{ err error }

func (e stopErr) Error() string { return e.err.Error() }

// readInput reads one path.
func readInput(ctx context.Context, path string, stdin io.Reader, fn func(*Raw) error) ([]*InputError, error) {
	if path == "-" {
		if stdin == nil {
			return []*InputError{{Source: "-", Err: errors.New("no standard input")}}, nil
		}
		return readStream(ctx, path, path, stdin, fn)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return []*InputError{{Source: path, Err: err}}, nil
	}
	if fi.IsDir() {
		return readMaildir(ctx, path, fn)
	}
	f, err := openRegular(path, true)
	if err != nil {
		return []*InputError{{Source: path, Err: err}}, nil
	}
	defer f.Close()
	return readStream(ctx, path, path, f, fn)
}

// readStream splits an mbox or single-message stream, gzip-compressed or
// not (a lore t.mbox.gz, b4's .mbox.gz).
func readStream(ctx context.Context, input, source string, r io.Reader, fn func(*Raw) error) ([]*InputError, error) {
	r, err := gunzipped(r)
	if err != nil {
		return []*InputError{{Source: source, Err: err}}, nil
	}
	idx := 0
	err = ReadMbox(ctxReader{ctx, r}, func(data []byte, line int) error {
		for _, c := range splitGitLog(data) {
			idx++
			if err := fn(&Raw{Input: input, Source: source, Line: line + c.line, Index: idx, Data: c.data}); err != nil {
				return stopErr{err}
			}
		}
		return nil
	})
	var stop stopErr
	switch {
	case errors.As(err, &stop):
		return nil, stop.err
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return []*InputError{{Source: source, Err: err}}, nil
	case idx == 0:
		return []*InputError{{Source: source, Err: errors.New("no messages")}}, nil
	}
	return nil, nil
}

// readMaildir reads the messages of a Maildir in name order, cur/ first.
func readMaildir(ctx context.Context, dir string, fn func(*Raw) error) ([]*InputError, error) {
	var (
		errs []*InputError
		seen bool
		idx  int
	)
	for _, sub := range []string{"cur", "new"} {
		d := filepath.Join(dir, sub)
		entries, err := os.ReadDir(d)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			errs = append(errs, &InputError{Source: d, Err: err})
			continue
		}
		seen = true
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			if e.Name()[0] == '.' || e.IsDir() {
				continue
			}
			if !e.Type().IsRegular() {
				errs = append(errs, &InputError{Source: filepath.Join(d, e.Name()), Err: fmt.Errorf("%w (%s)", ErrNotRegular, kindOf(e.Type()))})
				continue
			}
			names = append(names, e.Name())
		}
		sort.Strings(names)
		for _, n := range names {
			if err := ctx.Err(); err != nil {
				return errs, err
			}
			p := filepath.Join(d, n)
			data, err := readCapped(p)
			if err != nil {
				errs = append(errs, &InputError{Source: p, Err: err})
				continue
			}
			idx++
			if bytes.HasPrefix(data, []byte("From ")) {
				// git mailsplit -o and some MDAs keep the mbox "From " line.
				e, err := readStream(ctx, dir, p, bytes.NewReader(data), fn)
				errs = append(errs, e...)
				if err != nil {
					return errs, err
				}
				continue
			}
			if err := fn(&Raw{Input: dir, Source: p, Line: 1, Index: idx, Data: data}); err != nil {
				return errs, err
			}
		}
	}
	if !seen && len(errs) == 0 {
		return readPatchDir(ctx, dir, fn)
	}
	return errs, nil
}

// openRegular opens a file for reading only if it is a regular file. The
// open does not block (a FIFO without writer would) and, unless follow,
// does not follow a symbolic link.
func openRegular(p string, follow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(p, flags, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%w (symbolic link)", ErrNotRegular)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, kindOf(fi.Mode().Type()))
	}
	return f, nil
}

// kindOf names a non-regular file type.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m.IsDir():
		return "directory"
	}
	return "irregular file"
}

// readCapped reads a Maildir message (a regular file, not a link),
// keeping at most MaxMessageSize+1 bytes.
func readCapped(p string) ([]byte, error) {
	f, err := openRegular(p, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxMessageSize+1))
}

// ctxReader fails reads once ctx is done, so a long input stops on a
// signal.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
