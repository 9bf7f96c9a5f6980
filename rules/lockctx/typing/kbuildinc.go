package typing

import (
	"path"
	"regexp"
	"strings"
)

// A quoted include the compiler does not find beside the including file
// is searched in the -I directories kbuild passes it: a driver split
// into directories includes its shared headers by name
// (iwlwifi/mvm/ops.c: #include "iwl-trans.h", found through mvm's
// Makefile: ccflags-y += -I $(srctree)/$(src)/../). These come from the
// ccflags-y (and ccflags-$(CONFIG_...), CFLAGS_<object>.o) lines of the
// file's own directory's Makefile or Kbuild, and the subdir-ccflags-y
// lines of the directories above it.

// kbuildFlagRe matches a kbuild assignment that passes compiler flags:
// group 1 is the variable, group 2 the value.
var kbuildFlagRe = regexp.MustCompile(`(?m)^[ \t]*((?:subdir-)?ccflags-(?:y|\$\(CONFIG_[A-Za-z0-9_]+\))|CFLAGS_[A-Za-z0-9_-]+\.o)[ \t]*[:+?]?=(.*)$`)

// includeFlagRe matches one -I flag and its directory.
var includeFlagRe = regexp.MustCompile(`-I[ \t]*([^ \t]+)`)

// maxKbuildLevels bounds how many directories above a file are read for
// subdir-ccflags-y.
const maxKbuildLevels = 6

// KbuildIncludeDirs returns the -I directories kbuild compiles file
// with, relative to the tree's top, in the order the Makefiles give
// them: its own directory's first, then those of the directories above
// that apply to their subdirectories. Flags naming other variables than
// $(srctree), $(src) and $(obj) are left out.
func (ty *Typer) KbuildIncludeDirs(file string) []string {
	if ty.ix == nil {
		return nil
	}
	dir := path.Dir(file)
	base := strings.TrimSuffix(path.Base(file), path.Ext(file))
	var out []string
	for level := 0; level <= maxKbuildLevels && dir != "." && dir != "/"; level++ {
		for _, f := range ty.kbuildFlags(dir) {
			switch {
			case strings.HasPrefix(f.variable, "subdir-"):
			case level > 0:
				continue
			case strings.HasPrefix(f.variable, "CFLAGS_") && f.variable != "CFLAGS_"+base+".o":
				continue
			}
			out = append(out, f.dirs...)
		}
		dir = path.Dir(dir)
	}
	return out
}

// kbuildFlag is one assignment of compiler flags in a Makefile: the
// variable and the -I directories it passes.
type kbuildFlag struct {
	variable string
	dirs     []string
}

// kbuildFlags returns the -I flags the Makefile or Kbuild of dir sets,
// read once per tree.
func (ty *Typer) kbuildFlags(dir string) []kbuildFlag {
	return ty.ix.Underlying().Memo("typing.kbuildflags."+dir, func() any {
		var out []kbuildFlag
		for _, name := range []string{"Makefile", "Kbuild"} {
			src, err := ty.ix.Underlying().ReadFile(path.Join(dir, name))
			if err != nil {
				continue
			}
			out = append(out, parseKbuildFlags(string(src), dir)...)
		}
		return out
	}).([]kbuildFlag)
}

// parseKbuildFlags returns the -I directories of the flag assignments of
// a Makefile in dir, continuation lines joined and comments dropped.
func parseKbuildFlags(src, dir string) []kbuildFlag {
	src = strings.ReplaceAll(src, "\\\n", " ")
	var out []kbuildFlag
	for _, m := range kbuildFlagRe.FindAllStringSubmatch(src, -1) {
		value, _, _ := strings.Cut(m[2], "#")
		var dirs []string
		for _, inc := range includeFlagRe.FindAllStringSubmatch(value, -1) {
			if d, ok := kbuildDir(inc[1], dir); ok {
				dirs = append(dirs, d)
			}
		}
		if len(dirs) > 0 {
			out = append(out, kbuildFlag{variable: m[1], dirs: dirs})
		}
	}
	return out
}

// kbuildDir turns the directory of a -I flag into a path from the tree's
// top: $(srctree) is the top, $(src) and $(obj) the Makefile's directory.
func kbuildDir(flag, dir string) (string, bool) {
	for _, v := range []string{"$(srctree)/$(src)", "$(srctree)/$(obj)", "$(src)", "$(obj)"} {
		if rest, ok := strings.CutPrefix(flag, v); ok {
			flag = dir + rest
			break
		}
	}
	if rest, ok := strings.CutPrefix(flag, "$(srctree)"); ok {
		flag = strings.TrimPrefix(rest, "/")
		if flag == "" {
			flag = "."
		}
	}
	if strings.Contains(flag, "$") || strings.HasPrefix(flag, "/") {
		return "", false
	}
	flag = path.Clean(flag)
	if flag == ".." || strings.HasPrefix(flag, "../") {
		return "", false
	}
	return flag, true
}
