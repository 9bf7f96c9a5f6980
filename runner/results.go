package runner

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"time"
)

// Frame markers written by guest/init.c on the results UART.
const (
	markHello = "@@AUTOSEL-HELLO"
	markBegin = "@@AUTOSEL-BEGIN "
	markEnd   = "@@AUTOSEL-END "
	markDone  = "@@AUTOSEL-DONE"
	markError = "@@AUTOSEL-ERROR"
)

// KmsgLine is one kernel log record as the guest read it from /dev/kmsg.
type KmsgLine struct {
	// Micros is the record's timestamp (microseconds since boot).
	Micros int64
	// Text is the message.
	Text string
}

// Frame is one test run's report from the guest.
type Frame struct {
	// Name and Run identify the test run ("boot" 0 is the boot log).
	Name string
	Run  int
	// Out are the lines the test printed.
	Out []string
	// Kmsg are the kernel log records read while the test ran.
	Kmsg []KmsgLine
	// Exit is the exit status (-1 when killed by a signal).
	Exit int
	// Signal is the terminating signal, or 0.
	Signal int
	// Timeout is set when init killed the test at its deadline.
	Timeout bool
	// Unreaped is set when the test could not be reaped after SIGKILL
	// (a task stuck in the kernel).
	Unreaped bool
	// Elapsed is the run's wall time in the guest.
	Elapsed time.Duration
	// Truncated is set when the guest dropped output past its buffer.
	Truncated bool
}

// Channel is everything parsed from the results UART.
type Channel struct {
	// Hello is set when init started.
	Hello bool
	// Done is set when init finished every test.
	Done bool
	// Frames are the complete, checksum-verified frames in order.
	Frames []Frame
	// Running is the test whose frame began but never ended (the guest
	// died or was stopped while it ran), or "".
	Running string
	// RunningRun is Running's run number.
	RunningRun int
	// Problems are damaged frames and guest-side errors.
	Problems []string
}

// Frame returns the frame for name/run, or nil.
func (c *Channel) Frame(name string, run int) *Frame {
	for i := range c.Frames {
		if c.Frames[i].Name == name && c.Frames[i].Run == run {
			return &c.Frames[i]
		}
	}
	return nil
}

// parseChannel parses the results UART's bytes. It never fails: damaged
// frames are reported in Problems and skipped.
func parseChannel(data []byte) *Channel {
	c := &Channel{}
	var (
		cur     *Frame
		body    bytes.Buffer
		curLine int
	)
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, raw := range lines {
		if len(raw) == 0 || raw[len(raw)-1] != '\n' {
			// An unterminated last line: the guest stopped mid-line.
			if cur != nil {
				c.Running, c.RunningRun = cur.Name, cur.Run
			}
			break
		}
		line := string(raw[:len(raw)-1])
		switch {
		case strings.HasPrefix(line, markHello):
			c.Hello = true
		case strings.HasPrefix(line, markDone):
			c.Done = true
		case strings.HasPrefix(line, markError):
			c.Problems = append(c.Problems, "guest: "+strings.TrimSpace(strings.TrimPrefix(line, markError)))
		case strings.HasPrefix(line, markBegin):
			if cur != nil {
				c.Problems = append(c.Problems, fmt.Sprintf("results line %d: frame %s/%d not ended", curLine, cur.Name, cur.Run))
			}
			f := strings.Fields(strings.TrimPrefix(line, markBegin))
			if len(f) != 2 {
				c.Problems = append(c.Problems, fmt.Sprintf("results line %d: bad begin marker", i+1))
				cur = nil
				continue
			}
			run, err := strconv.Atoi(f[1])
			if err != nil {
				c.Problems = append(c.Problems, fmt.Sprintf("results line %d: bad run number", i+1))
				cur = nil
				continue
			}
			cur = &Frame{Name: f[0], Run: run}
			curLine = i + 1
			body.Reset()
		case strings.HasPrefix(line, markEnd):
			if cur == nil {
				c.Problems = append(c.Problems, fmt.Sprintf("results line %d: end marker without begin", i+1))
				continue
			}
			if err := endFrame(cur, line, body.Bytes()); err != nil {
				c.Problems = append(c.Problems, fmt.Sprintf("results line %d: frame %s/%d: %v", i+1, cur.Name, cur.Run, err))
			} else {
				c.Frames = append(c.Frames, *cur)
			}
			cur = nil
		default:
			if cur == nil {
				continue // noise between frames
			}
			body.Write(raw)
			switch {
			case strings.HasPrefix(line, "o "):
				cur.Out = append(cur.Out, line[2:])
			case strings.HasPrefix(line, "k "):
				cur.Kmsg = append(cur.Kmsg, parseKmsgLine(line[2:]))
			case strings.HasPrefix(line, "x "):
				cur.Truncated = true
			}
		}
	}
	if cur != nil && c.Running == "" {
		c.Running, c.RunningRun = cur.Name, cur.Run
	}
	return c
}

// endFrame checks the end marker's length and checksum against the body
// and fills the frame's status fields.
func endFrame(f *Frame, line string, body []byte) error {
	fields := strings.Fields(strings.TrimPrefix(line, markEnd))
	if len(fields) < 2 || fields[0] != f.Name || fields[1] != strconv.Itoa(f.Run) {
		return fmt.Errorf("end marker %q does not match", line)
	}
	kv := map[string]string{}
	for _, x := range fields[2:] {
		k, v, ok := strings.Cut(x, "=")
		if ok {
			kv[k] = v
		}
	}
	n, err := strconv.Atoi(kv["len"])
	if err != nil || n != len(body) {
		return fmt.Errorf("length %q, got %d bytes (damaged)", kv["len"], len(body))
	}
	want, err := strconv.ParseUint(kv["crc"], 16, 32)
	if err != nil || uint32(want) != crc32.ChecksumIEEE(body) {
		return fmt.Errorf("checksum mismatch (damaged)")
	}
	f.Exit, _ = strconv.Atoi(kv["exit"])
	f.Signal, _ = strconv.Atoi(kv["sig"])
	f.Timeout = kv["timeout"] == "1"
	f.Unreaped = kv["unreaped"] == "1"
	ms, _ := strconv.Atoi(kv["ms"])
	f.Elapsed = time.Duration(ms) * time.Millisecond
	return nil
}

func parseKmsgLine(s string) KmsgLine {
	ts, text, ok := strings.Cut(s, " ")
	if !ok {
		return KmsgLine{Text: s}
	}
	us, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return KmsgLine{Text: s}
	}
	return KmsgLine{Micros: us, Text: text}
}
