// Command gen-treewide-patch writes a treewide "remove redundant error
// messages" patch for a Linux tree, the multi-file input of the benchmarks
// (scripts/bench-process.sh multifile): in the first -files driver files
// (sorted by path) where platform_get_irq(), platform_get_irq_byname() or
// devm_ioremap_resource() fails into a block that only prints a dev_err()
// and returns the error, the dev_err() is dropped (those helpers already
// print one) and the block's braces with it. The patch is one mail with a
// diff per file, as `git format-patch` writes it.
//
// usage: go run ./scripts/gen-treewide-patch [-tree DIR] [-files N] > out.patch
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	tree := flag.String("tree", envOr("AUTOSEL_KERNEL_SRC", "/var/tmp/autosel-bot/linux-6.1"), "Linux tree")
	files := flag.Int("files", 24, "files the patch changes")
	flag.Parse()
	if err := run(*tree, *files); err != nil {
		fmt.Fprintln(os.Stderr, "gen-treewide-patch:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// run walks tree/drivers and prints the patch of the first n files that
// change.
func run(tree string, n int) error {
	var paths []string
	err := filepath.WalkDir(filepath.Join(tree, "drivers"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".c") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("walk: %w", err)
	}
	sort.Strings(paths)
	tmp, err := os.MkdirTemp("", "treewide")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var diffs bytes.Buffer
	done, removed := 0, 0
	for _, p := range paths {
		if done == n {
			break
		}
		old, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		nw, k := dropMessages(string(old))
		if k == 0 {
			continue
		}
		rel, _ := filepath.Rel(tree, p)
		d, err := diffFile(tmp, rel, old, []byte(nw))
		if err != nil {
			return err
		}
		diffs.Write(d)
		done++
		removed += k
	}
	if done < n {
		return fmt.Errorf("only %d files found, %d asked for", done, n)
	}
	fmt.Printf("From: Bench Author <bench@example.org>\n")
	fmt.Printf("Subject: [PATCH] drivers: remove redundant error messages after platform_get_irq() and devm_ioremap_resource()\n\n")
	fmt.Printf("platform_get_irq() and devm_ioremap_resource() print an error of their\nown when they fail; drop the %d dev_err() calls that repeat it in %d files.\n\n", removed, done)
	fmt.Printf("Signed-off-by: Bench Author <bench@example.org>\n---\n")
	_, err = os.Stdout.Write(diffs.Bytes())
	return err
}

// diffFile is the unified diff of rel from old to nw, with a/ and b/ paths.
func diffFile(tmp, rel string, old, nw []byte) ([]byte, error) {
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	if err := os.WriteFile(a, old, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(b, nw, 0o644); err != nil {
		return nil, err
	}
	out, err := exec.Command("diff", "-u", "-p", "--label", "a/"+rel, "--label", "b/"+rel, a, b).Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", rel, err)
	}
	return append([]byte("diff --git a/"+rel+" b/"+rel+"\n"), out...), nil
}

// failCheck is the condition that tests a call's result for failure.
func failCheck(call, v string) string {
	if call == "devm_ioremap_resource" {
		return "if (IS_ERR(" + v + ")) {"
	}
	return "if (" + v + " < 0) {"
}

// dropMessages removes the redundant dev_err() blocks of src and returns
// the new text and how many it removed.
func dropMessages(src string) (string, int) {
	lines := strings.SplitAfter(src, "\n")
	var out []string
	removed := 0
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		v, call, indent, ok := assignment(lines[i])
		if !ok {
			continue
		}
		j := i
		for j < len(lines) && !strings.HasSuffix(strings.TrimSpace(lines[j]), ";") {
			j++
			if j < len(lines) {
				out = append(out, lines[j])
			}
		}
		if k, ret := block(lines, j+1, indent, call, v); k > 0 {
			out = append(out, indent+strings.TrimSuffix(failCheck(call, v), " {")+"\n", ret)
			i = j + k
			removed++
			continue
		}
		i = j
	}
	return strings.Join(out, ""), removed
}

// assignment reports whether line assigns the result of one of the calls
// to a variable, with the variable, the call and the line's indentation.
func assignment(line string) (v, call, indent string, ok bool) {
	t := strings.TrimLeft(line, "\t")
	indent = line[:len(line)-len(t)]
	lhs, rhs, found := strings.Cut(t, " = ")
	if !found || indent == "" || strings.ContainsAny(lhs, " ()") {
		return "", "", "", false
	}
	for _, c := range []string{"platform_get_irq_byname(", "platform_get_irq(", "devm_ioremap_resource("} {
		if strings.HasPrefix(rhs, c) {
			return lhs, strings.TrimSuffix(c, "("), indent, true
		}
	}
	return "", "", "", false
}

// block matches, at lines[i:], the failure check of v with a body of one
// dev_err() statement and a return: it returns the number of lines the
// block takes and the return line, or 0.
func block(lines []string, i int, indent, call, v string) (int, string) {
	if i >= len(lines) || lines[i] != indent+failCheck(call, v)+"\n" {
		return 0, ""
	}
	j := i + 1
	if j >= len(lines) || !strings.HasPrefix(lines[j], indent+"\tdev_err(") {
		return 0, ""
	}
	for j < len(lines) && !strings.HasSuffix(strings.TrimSpace(lines[j]), ");") {
		j++
	}
	j++
	want := indent + "\treturn " + v + ";\n"
	if call == "devm_ioremap_resource" {
		want = indent + "\treturn PTR_ERR(" + v + ");\n"
	}
	if j+1 >= len(lines) || lines[j] != want || lines[j+1] != indent+"}\n" {
		return 0, ""
	}
	return j + 2 - i, lines[j]
}
