package patchguard

import "bytes"

// source is a file's text after the translation phases of C (and of cpp
// on .S and .lds.S files) that hide a directive from a line-by-line
// match: backslash-newlines (gcc also takes blanks between the two) are
// removed and every comment is one space, its newlines consumed. The
// physical line of every byte is kept, so a construct is traced back to the
// lines that make it up.
type source struct {
	text []byte
	line []int // 0-based physical line of text[i]
	// strs are the string literals of text, [start, end) with the quotes.
	strs [][2]int
}

// normalize returns data as the preprocessor tokenises it.
func normalize(data []byte) *source {
	text, line := splice(data)
	s := &source{}
	const (
		code = iota
		block
		lineComment
		str
		chr
	)
	state, start := code, 0
	emit := func(i int) {
		s.text = append(s.text, text[i])
		s.line = append(s.line, line[i])
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		next := byte(0)
		if i+1 < len(text) {
			next = text[i+1]
		}
		switch state {
		case code:
			switch {
			case c == '/' && next == '*':
				s.text = append(s.text, ' ')
				s.line = append(s.line, line[i])
				state = block
				i++
			case c == '/' && next == '/':
				state = lineComment
				i++
			case c == '"' || c == '\'':
				state, start = str, len(s.text)
				if c == '\'' {
					state = chr
				}
				emit(i)
			default:
				emit(i)
			}
		case block:
			if c == '*' && next == '/' {
				state = code
				i++
			}
		case lineComment:
			if c == '\n' {
				state = code
				emit(i)
			}
		case str, chr:
			quote := byte('"')
			if state == chr {
				quote = '\''
			}
			switch {
			case c == '\\' && next != '\n' && next != 0:
				emit(i)
				emit(i + 1)
				i++
			case c == quote || c == '\n':
				// An unterminated literal (an apostrophe in assembly)
				// ends with its line.
				emit(i)
				if state == str && c == quote {
					s.strs = append(s.strs, [2]int{start, len(s.text)})
				}
				state = code
			default:
				emit(i)
			}
		}
	}
	return s
}

// splice removes every backslash-newline (with blanks or a carriage
// return between them, as gcc accepts with a warning) and returns the text
// with the 0-based physical line of each byte.
func splice(data []byte) ([]byte, []int) {
	text := make([]byte, 0, len(data))
	line := make([]int, 0, len(data))
	ln := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '\\' {
			j := i + 1
			for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\r') {
				j++
			}
			if j < len(data) && data[j] == '\n' {
				ln++
				i = j
				continue
			}
		}
		text = append(text, c)
		line = append(line, ln)
		if c == '\n' {
			ln++
		}
	}
	return text, line
}

// span is a piece of normalised text with the physical lines it comes
// from, one entry per byte.
type span struct {
	text []byte
	line []int
}

// logicalLines splits the normalised text at its newlines; a directive
// start spelled as a digraph (%:) or trigraph (??=) becomes #.
func (s *source) logicalLines() []span {
	var out []span
	begin := 0
	for i := 0; i <= len(s.text); i++ {
		if i < len(s.text) && s.text[i] != '\n' {
			continue
		}
		sp := span{text: append([]byte(nil), s.text[begin:i]...), line: s.line[begin:i]}
		lead := len(sp.text) - len(bytes.TrimLeft(sp.text, " \t\f\v\r"))
		for _, alt := range []string{"%:", "??="} {
			if bytes.HasPrefix(sp.text[lead:], []byte(alt)) {
				sp.text = append(append(append([]byte(nil), sp.text[:lead]...), '#'), sp.text[lead+len(alt):]...)
				sp.line = append(append(append([]int(nil), sp.line[:lead]...), sp.line[lead]), sp.line[lead+len(alt):]...)
				break
			}
		}
		out = append(out, sp)
		begin = i + 1
	}
	return out
}

// stringGroups returns the contents of the string literals that the
// compiler concatenates (adjacent ones, separated by blanks, newlines or
// comments), with C escapes decoded: what an asm() statement or _Pragma
// hands on.
func (s *source) stringGroups() []span {
	var out []span
	for i := 0; i < len(s.strs); {
		var g span
		j := i
		for ; j < len(s.strs); j++ {
			if j > i && len(bytes.TrimSpace(s.text[s.strs[j-1][1]:s.strs[j][0]])) > 0 {
				break
			}
			a, b := s.strs[j][0]+1, s.strs[j][1]-1
			decodeInto(&g, s.text[a:b], s.line[a:b])
		}
		out = append(out, g)
		i = j
	}
	return out
}

// decodeInto appends the string literal body text (its bytes on lines) to
// g with C escapes decoded.
func decodeInto(g *span, text []byte, lines []int) {
	for i := 0; i < len(text); i++ {
		c, ln := text[i], lines[i]
		if c != '\\' || i+1 >= len(text) {
			g.text, g.line = append(g.text, c), append(g.line, ln)
			continue
		}
		i++
		e := text[i]
		switch {
		case e >= '0' && e <= '7':
			v := 0
			for k := 0; k < 3 && i < len(text) && text[i] >= '0' && text[i] <= '7'; k++ {
				v = v*8 + int(text[i]-'0')
				i++
			}
			i--
			c = byte(v)
		case e == 'x':
			v := 0
			for i+1 < len(text) && isHex(text[i+1]) {
				i++
				v = v*16 + hexVal(text[i])
			}
			c = byte(v)
		default:
			c = simpleEscape(e)
		}
		g.text, g.line = append(g.text, c), append(g.line, ln)
	}
}

// simpleEscape is the byte of the one-letter escape \e (\\, \", \', \?
// and unknown escapes stand for themselves).
func simpleEscape(e byte) byte {
	switch e {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case 'a':
		return 7
	case 'b':
		return 8
	case 'f':
		return 12
	case 'v':
		return 11
	}
	return e
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}
