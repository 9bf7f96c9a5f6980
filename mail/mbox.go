package mail

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxMessageSize caps one raw message read from an mbox. ReadMbox keeps at
// most MaxMessageSize+1 bytes of a longer message (the rest is discarded),
// so the callback can tell it was cut and reject it.
const MaxMessageSize = DefaultMaxBodySize*3/2 + 1<<20

// ReadMbox splits an mbox stream (mboxo or mboxrd) into raw messages and
// calls fn for each with the message (separator line removed, ">From "
// quoting undone) and the 1-based line of r where the message's first
// header line is. A "From " line separates messages when it is the first
// line or follows an empty line, and looks like an mbox separator
// ("From <sender> <date>", as written by MTAs and git format-patch).
// A stream without any separator is a single message. ReadMbox stops at
// the first error from fn or from r and returns it.
func ReadMbox(r io.Reader, fn func(raw []byte, line int) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		cur      bytes.Buffer
		curLine  = 1
		lineNo   = 0
		prevBlnk = true
		have     = false
		cut      = false
	)
	emit := func() error {
		if !have {
			return nil
		}
		data := cur.Bytes()
		// The blank line before the next separator belongs to the mbox.
		if bytes.HasSuffix(data, []byte("\n\n")) {
			data = data[:len(data)-1]
		} else if bytes.HasSuffix(data, []byte("\r\n\r\n")) {
			data = data[:len(data)-2]
		}
		out := make([]byte, len(data))
		copy(out, data)
		cur.Reset()
		have, cut = false, false
		return fn(out, curLine)
	}
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A very long line: gather it whole (bounded by MaxMessageSize).
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				if len(long) <= MaxMessageSize {
					long = append(long, line...)
				}
			}
			line = long
		}
		if len(line) > 0 {
			lineNo++
			if prevBlnk && isMboxSeparator(line) {
				if err := emit(); err != nil {
					return err
				}
				curLine = lineNo + 1
				prevBlnk = false
				have = true
				goto next
			}
			if !have {
				have = true
				curLine = lineNo
			}
			prevBlnk = len(bytes.TrimRight(line, "\r\n")) == 0
			if isQuotedFrom(line) {
				line = line[1:]
			}
			if !cut {
				if cur.Len()+len(line) > MaxMessageSize {
					n := MaxMessageSize + 1 - cur.Len()
					if n > 0 {
						cur.Write(line[:min(n, len(line))])
					}
					cut = true
				} else {
					cur.Write(line)
				}
			}
		}
	next:
		if err != nil {
			if errors.Is(err, io.EOF) {
				return emit()
			}
			return fmt.Errorf("reading mbox line %d: %w", lineNo, err)
		}
	}
}

// isMboxSeparator reports whether line is an mbox "From " separator:
// "From " then a sender, then text containing a time or a year, as in
// "From sashal@kernel.org Fri Feb 14 08:03:00 2020" or
// "From 0ddad21d3e99c743a3aa473121dc5561679e26bb Mon Sep 17 00:00:00 2001".
func isMboxSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("From ")) {
		return false
	}
	rest := bytes.TrimRight(line[5:], "\r\n")
	sp := bytes.IndexByte(rest, ' ')
	if sp <= 0 {
		// "From sender@host" without a date is accepted only when the
		// sender looks like an address (some tools write just that).
		return bytes.IndexByte(rest, '@') > 0 && !bytes.ContainsAny(rest, ":")
	}
	date := rest[sp+1:]
	return bytes.Count(date, []byte(":")) >= 1 && hasDigitRun(date, 4)
}

func hasDigitRun(b []byte, n int) bool {
	run := 0
	for _, c := range b {
		if c >= '0' && c <= '9' {
			run++
			if run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// isQuotedFrom reports whether line is a quoted ">From " line (mboxrd:
// any number of '>' before "From ").
func isQuotedFrom(line []byte) bool {
	i := 0
	for i < len(line) && line[i] == '>' {
		i++
	}
	return i > 0 && bytes.HasPrefix(line[i:], []byte("From "))
}
