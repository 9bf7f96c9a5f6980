package patchguard

import (
	"bytes"
	"context"
	"path"
	"regexp"
	"strings"
)

// HostTools are the files of a tree that kbuild compiles into programs
// (hostprogs run on the build host; userprogs are built with the host
// toolchain too), with every header they include from the tree. A patch
// to any of them changes code that runs during the build.
type HostTools struct {
	// Files maps a path to the program that pulls it in ("dir/prog").
	Files map[string]string
}

// maxHostFiles bounds the include closure (a kernel has a few hundred).
const maxHostFiles = 20000

var (
	progVar   = regexp.MustCompile(`^(hostprogs|userprogs|hostcxxlibs|hostcxxprogs)(-always)?(-[A-Za-z0-9_$()]+)?$`)
	assign    = regexp.MustCompile(`^\s*(?:override\s+|export\s+)?([A-Za-z0-9_$().+/-]+)\s*(?:\+=|:=|::=|\?=|=)\s*(.*)$`)
	includeIn = regexp.MustCompile(`^\s*#\s*include(?:_next)?\s*([<"])([^>"]+)[>"]`)
	includeI  = regexp.MustCompile(`-I\s*(\S+)`)
)

// deriveHostTools reads every Makefile and Kbuild file of commit in repo
// and returns the host-program sources and their tree-local headers.
func deriveHostTools(ctx context.Context, repo, commit string) (*HostTools, error) {
	out, err := gitCmd(ctx, repo, nil, nil, "ls-tree", "-r", "-z", "--name-only", commit)
	if err != nil {
		return nil, err
	}
	files := map[string]bool{}
	var makefiles []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		files[p] = true
		b := path.Base(p)
		if strings.HasPrefix(b, "Makefile") || strings.HasPrefix(b, "Kbuild") {
			makefiles = append(makefiles, p)
		}
	}
	cf, err := newCatFile(ctx, repo, nil)
	if err != nil {
		return nil, err
	}
	defer cf.close()
	read := func(p string) []byte {
		b, ok, err := cf.read(commit + ":" + p)
		if err != nil || !ok {
			return nil
		}
		return b
	}
	var arches []string
	for p := range files {
		if strings.HasPrefix(p, "arch/") {
			if a := strings.SplitN(p, "/", 3); len(a) == 3 {
				arches = append(arches, a[1])
			}
		}
	}
	arches = uniq(arches)

	// Global host include directories (top-level KBUILD_HOSTCFLAGS).
	var global []string
	if top := read("Makefile"); top != nil {
		vars := parseMake(top)
		for _, n := range []string{"KBUILD_USERHOSTCFLAGS", "KBUILD_HOSTCFLAGS", "KBUILD_USERCFLAGS"} {
			global = append(global, includeDirs(vars[n], "", arches)...)
		}
	}

	ht := &HostTools{Files: map[string]string{}}
	type item struct {
		file string
		dirs []string // -I directories (tree paths)
		prog string
	}
	var queue []item
	for _, mk := range makefiles {
		data := read(mk)
		if !bytes.Contains(data, []byte("progs")) {
			continue
		}
		dir := path.Dir(mk)
		if dir == "." {
			dir = ""
		}
		vars := parseMake(data)
		extra := includeDirs(vars["HOST_EXTRACFLAGS"], dir, arches)
		extra = append(extra, includeDirs(vars["userccflags"], dir, arches)...)
		for name, vals := range vars {
			if !progVar.MatchString(name) {
				continue
			}
			for _, prog := range vals {
				if strings.Contains(prog, "$") {
					continue
				}
				var objs []string
				for _, suffix := range []string{"-objs", "-y", "-cxxobjs", "-objs-y"} {
					objs = append(objs, vars[prog+suffix]...)
				}
				if len(objs) == 0 {
					objs = []string{prog + ".o"}
				}
				label := path.Join(dir, prog)
				for _, o := range objs {
					if strings.Contains(o, "$") || !strings.HasSuffix(o, ".o") {
						continue
					}
					stem := strings.TrimSuffix(o, ".o")
					dirs := append([]string{dir}, extra...)
					dirs = append(dirs, includeDirs(vars["HOSTCFLAGS_"+path.Base(stem)+".o"], dir, arches)...)
					dirs = append(dirs, includeDirs(vars[prog+"-userccflags"], dir, arches)...)
					dirs = append(dirs, global...)
					for _, ext := range []string{".c", ".cc", ".cpp", ".S"} {
						if src := path.Join(dir, stem+ext); files[src] {
							queue = append(queue, item{src, dirs, label})
						}
					}
				}
			}
		}
	}
	// Include closure: a quoted include is looked up next to the file
	// first, then (as an angle include) in the -I directories.
	for len(queue) > 0 && len(ht.Files) < maxHostFiles {
		it := queue[0]
		queue = queue[1:]
		if _, done := ht.Files[it.file]; done {
			continue
		}
		ht.Files[it.file] = it.prog
		for _, l := range strings.Split(string(read(it.file)), "\n") {
			m := includeIn.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			var cands []string
			if m[1] == `"` {
				cands = append(cands, path.Join(path.Dir(it.file), m[2]))
			}
			for _, d := range it.dirs {
				cands = append(cands, path.Join(d, m[2]))
			}
			for _, c := range cands {
				if files[c] {
					queue = append(queue, item{c, it.dirs, it.prog})
					break
				}
			}
		}
	}
	return ht, nil
}

// parseMake returns the words assigned to each variable of a Makefile
// (every assignment, whatever its condition: the guard over-approximates).
func parseMake(data []byte) map[string][]string {
	vars := map[string][]string{}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	for _, l := range strings.Split(text, "\n") {
		if i := strings.IndexByte(l, '#'); i >= 0 {
			l = l[:i]
		}
		m := assign.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		vars[m[1]] = append(vars[m[1]], strings.Fields(m[2])...)
	}
	return vars
}

// includeDirs picks the -I directories out of compiler flags, as tree
// paths: $(srctree) and $(objtree) are the top, $(src) and $(obj) the
// Makefile's directory; an architecture variable stands for every arch.
func includeDirs(words []string, dir string, arches []string) []string {
	var out []string
	flags := strings.Join(words, " ")
	for _, m := range includeI.FindAllStringSubmatch(flags, -1) {
		p := m[1]
		for _, v := range []struct{ from, to string }{
			{"$(srctree)/", ""}, {"$(objtree)/", ""}, {"$(srctree)", "."}, {"$(objtree)", "."},
			{"$(src)", dir}, {"$(obj)", dir},
		} {
			p = strings.ReplaceAll(p, v.from, v.to)
		}
		var ps []string
		if strings.Contains(p, "$(SRCARCH)") || strings.Contains(p, "$(SUBARCH)") || strings.Contains(p, "$(ARCH)") || strings.Contains(p, "$(HEADER_ARCH)") {
			for _, a := range arches {
				q := p
				for _, v := range []string{"$(SRCARCH)", "$(SUBARCH)", "$(ARCH)", "$(HEADER_ARCH)"} {
					q = strings.ReplaceAll(q, v, a)
				}
				ps = append(ps, q)
			}
		} else {
			ps = []string{p}
		}
		for _, q := range ps {
			if strings.Contains(q, "$") || strings.HasPrefix(q, "/") {
				continue
			}
			out = append(out, path.Clean(q))
		}
	}
	return out
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
