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
var kbuildFlagRe = regexp.MustCompile(`(?m)^[ \t]*((?:subdir-)?ccflags-(?:y|\$\(CONFIG_[A-Za-z0-9_]+(?::m=y)?\))|CFLAGS_[A-Za-z0-9_-]+\.o)[ \t]*[:+?]?=(.*)$`)

// includeFlagRe matches one -I flag and its directory.
var includeFlagRe = regexp.MustCompile(`-I[ \t]*([^ \t]+)`)

// maxKbuildLevels bounds how many directories above a file are read for
// subdir-ccflags-y.
const maxKbuildLevels = 6

// KbuildIncludeDirs returns the -I directories kbuild compiles file
// with, relative to the tree's top, in command-line order (the first
// holding a header wins): the subdir-ccflags-y of the directories above,
// outermost first, then the ccflags-y and CFLAGS_<object>.o of the
// Makefile that builds the object (the file's own directory's, or the one
// above listing it as "sub/obj.o", as hns3's lists hns3pf/hclge_main.o).
// Flags naming other variables than $(srctree), $(src) and $(obj) are
// left out.
func (ty *Typer) KbuildIncludeDirs(file string) []string {
	if ty.ix == nil {
		return nil
	}
	obj := strings.TrimSuffix(file, path.Ext(file)) + ".o"
	dir := path.Dir(file)
	var levels [][]string
	for level := 0; level <= maxKbuildLevels && dir != "." && dir != "/"; level++ {
		mk := ty.kbuildFlags(dir)
		rel := strings.TrimPrefix(obj, dir+"/")
		builds := level == 0 || strings.Contains(mk.text, rel)
		var dirs []string
		for _, f := range mk.flags {
			switch {
			case strings.HasPrefix(f.variable, "subdir-"):
			case !builds:
				continue
			case strings.HasPrefix(f.variable, "CFLAGS_") && f.variable != "CFLAGS_"+path.Base(rel):
				continue
			}
			dirs = append(dirs, f.dirs...)
		}
		levels = append(levels, dirs)
		dir = path.Dir(dir)
	}
	var out []string
	for i := len(levels) - 1; i >= 0; i-- {
		out = append(out, levels[i]...)
	}
	return out
}

// kbuildMakefile is what the include search needs of a directory's
// Makefile and Kbuild: their text and their flag assignments.
type kbuildMakefile struct {
	text  string
	flags []kbuildFlag
}

// kbuildFlag is one assignment of compiler flags in a Makefile: the
// variable and the -I directories it passes.
type kbuildFlag struct {
	variable string
	dirs     []string
}

// kbuildFlags returns the Makefile of dir (its Kbuild when it has one,
// as kbuild reads), read once per tree.
func (ty *Typer) kbuildFlags(dir string) kbuildMakefile {
	return ty.ix.Underlying().Memo("typing.kbuildflags."+dir, func() any {
		for _, name := range []string{"Kbuild", "Makefile"} {
			src, err := ty.ix.Underlying().ReadFile(path.Join(dir, name))
			if err == nil {
				return kbuildMakefile{text: string(src), flags: parseKbuildFlags(string(src), dir)}
			}
		}
		return kbuildMakefile{}
	}).(kbuildMakefile)
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
