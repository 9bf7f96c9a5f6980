package runner

import (
	"bytes"
	"regexp"
	"strings"
)

// ConsoleResultsArg on the guest kernel command line makes the guest's init
// write the results frames to the console UART (ttyS0) instead of ttyS1,
// for labs that record only the console (LAVA). SplitConsole separates the
// recorded stream again.
const ConsoleResultsArg = "autosel.results=console"

// SplitConsole separates a console log that carries the results frames
// (a guest booted with ConsoleResultsArg) into the two logs a local boot
// gets from its two UARTs: the kernel console and the results channel.
// Marker lines go to the results; between a frame's begin and end
// markers, so do its body lines ("o ", "k ", "x ", "e "); every other line
// (the kernel's console output, which init keeps from landing inside a
// frame line) goes to the console. Carriage returns are dropped.
//
// A console line the kernel prints on its own (a device probed late in
// boot) can still cut a frame line in two: "k 6132[    2.555595] input:
// ...", more console lines, then "70 cblist_init_generic: ...". The
// console lines go to the console and the two halves are joined again;
// the frame's length and checksum then say whether that was right.
func SplitConsole(log []byte) (console, results []byte) {
	var con, res bytes.Buffer
	inFrame := false
	cut := "" // the first half of a frame line cut by console lines
	for _, raw := range bytes.SplitAfter(log, []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		line := strings.TrimRight(string(raw), "\r\n")
		nl := "\n"
		if raw[len(raw)-1] != '\n' {
			nl = "" // an unterminated last line stays unterminated
		}
		switch {
		case strings.HasPrefix(line, "@@AUTOSEL-"):
			if cut != "" {
				res.WriteString(cut + "\n") // left damaged: the checksum says so
				cut = ""
			}
			inFrame = strings.HasPrefix(line, markBegin)
			res.WriteString(line + nl)
		case inFrame && consoleLineAt.MatchString(line):
			con.WriteString(line + nl)
		case inFrame && cut != "":
			res.WriteString(cut + line + nl)
			cut = ""
		case inFrame && isFrameBody(line):
			if loc := consoleLineIn.FindStringIndex(line); loc != nil {
				cut = line[:loc[0]]
				con.WriteString(line[loc[0]:] + nl)
				continue
			}
			res.WriteString(line + nl)
		default:
			con.WriteString(line + nl)
		}
	}
	if cut != "" {
		res.WriteString(cut)
	}
	return con.Bytes(), res.Bytes()
}

// consoleLineAt matches a kernel console line (printk.time's "[    2.555595]
// " prefix); consoleLineIn finds one starting inside another line.
var (
	consoleLineAt = regexp.MustCompile(`^\[ *\d+\.\d{6}\] `)
	consoleLineIn = regexp.MustCompile(`\[ *\d+\.\d{6}\] `)
)

// isFrameBody reports whether line has the shape of a frame body line
// (guest/init.c body_add: a tag letter and a space).
func isFrameBody(line string) bool {
	if len(line) < 2 || line[1] != ' ' {
		return false
	}
	switch line[0] {
	case 'o', 'k', 'x', 'e':
		return true
	}
	return false
}
