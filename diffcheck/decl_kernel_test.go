package diffcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// lookupResourcePatch is a real patch of the evaluation corpus (train
// split): Debian's "resources: Add lookup_resource()". Its header hunk adds
// a prototype to include/linux/ioport.h after the multi-line prototype of
// allocate_resource(), which git names in the hunk's section line.
const lookupResourcePatch = "../eval/ordinary/0125-resources-add-lookup-resource.patch"

// corpusDiff returns the diff of a corpus patch (from its first "diff --git").
func corpusDiff(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "diff --git ")
	if i < 0 {
		t.Fatalf("%s: no diff", path)
	}
	return s[i:]
}

// TestRealHeaderHunkNotApplied: on Linux 6.1, which has lookup_resource()
// already, the real header hunk does not apply; its prototype makes no
// body of allocate_resource() (nor of anything in the header) in the
// post-image mapping, and the new body in kernel/resource.c is still
// lookup_resource().
func TestRealHeaderHunkNotApplied(t *testing.T) {
	dir := testkernel.Dir(t)
	diff := corpusDiff(t, lookupResourcePatch)
	if _, err := os.Stat(filepath.Join(dir, "include", "linux", "ioport.h")); err != nil {
		t.Fatalf("kernel tree %s: %v", dir, err)
	}
	cs, err := Parse(diff)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyTree(cs, DirTree(dir)); err != nil {
		t.Fatal(err)
	}
	if cs.ApplyError == "" {
		t.Fatal("the patch applied to Linux 6.1: the test needs a header hunk that does not")
	}
	header := false
	for _, e := range cs.ApplyErrors {
		header = header || strings.Contains(e.Error(), "include/linux/ioport.h")
	}
	if !header {
		t.Errorf("the header hunk applied; apply errors: %s", cs.ApplyError)
	}
	var got []string
	for _, fc := range cs.Funcs {
		got = append(got, fc.File+":"+fc.Name)
		if strings.HasPrefix(fc.File, "include/") {
			t.Errorf("function %s:%s from a hunk of declarations", fc.File, fc.Name)
		}
	}
	if strings.Join(got, " ") != "kernel/resource.c:lookup_resource" {
		t.Errorf("functions %q, want only kernel/resource.c:lookup_resource", got)
	}
}
