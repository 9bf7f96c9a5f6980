package buildlog

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxSourceFile bounds how much of one tree file is read to check the
// source lines a diagnostic quotes.
const maxSourceFile = 16 << 20

// roots are the directories whose files a reply may name and quote: the
// worktree first, then build directories. Relative paths in the log are
// resolved against each (the compiler's working directory is one of them).
type roots struct {
	dirs  []string            // cleaned absolute roots
	reals []string            // the same with symlinks resolved
	files map[string][]string // tree files read so far, by real path
}

func newRoots(dirs []string) *roots {
	r := &roots{files: map[string][]string{}}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		abs = filepath.Clean(abs)
		r.dirs = append(r.dirs, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			r.reals = append(r.reals, real)
		}
	}
	return r
}

// inside returns abs relative to the first root containing it.
func (r *roots) inside(abs string) (string, bool) {
	return within(r.dirs, abs)
}

func within(dirs []string, abs string) (string, bool) {
	for _, root := range dirs {
		if abs == root {
			return ".", true
		}
		if strings.HasPrefix(abs, root+string(filepath.Separator)) {
			return abs[len(root)+1:], true
		}
	}
	return "", false
}

// real returns the real path of the regular file abs when it exists and
// its real path is inside a root.
func (r *roots) real(abs string) (string, bool) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", false
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	if _, ok := within(r.reals, real); !ok {
		return "", false
	}
	return real, true
}

// sameText reports whether text is line num of the tree file (whitespace
// runs compared as one space: gcc expands tabs when it quotes a line).
func (r *roots) sameText(file, num, text string) bool {
	if file == "" {
		return false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return false
	}
	lines, ok := r.files[file]
	if !ok {
		lines = readLines(file)
		r.files[file] = lines
	}
	if n > len(lines) {
		return false
	}
	return strings.Join(strings.Fields(lines[n-1]), " ") == strings.Join(strings.Fields(text), " ")
}

// readLines reads up to maxSourceFile bytes of file as lines.
func readLines(file string) []string {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSourceFile))
	if err != nil {
		return nil
	}
	return strings.Split(string(bytes.ReplaceAll(data, []byte("\r"), nil)), "\n")
}
