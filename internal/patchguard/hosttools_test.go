package patchguard

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// TestHostToolsFromKbuild derives the host-tool list of the Linux 6.1
// tree from its Kbuild files: the sources the issue found unguarded and
// the headers they include must be in it, ordinary kernel code must not.
func TestHostToolsFromKbuild(t *testing.T) {
	tree := testkernel.Dir(t)
	start := time.Now()
	ht, err := deriveHostTools(context.Background(), tree, "base")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d host-tool files in %v", len(ht.Files), time.Since(start))
	for _, p := range []string{
		"scripts/mod/file2alias.c", "include/linux/mod_devicetable.h", "scripts/mod/modpost.h",
		"arch/x86/boot/compressed/mkpiggy.c", "arch/x86/boot/mkcpustr.c", "arch/x86/boot/tools/build.c",
		"arch/x86/entry/vdso/vdso2c.c", "arch/x86/entry/vdso/vdso2c.h", "certs/extract-cert.c",
		"lib/gen_crc32table.c", "include/linux/crc32poly.h", "tools/include/tools/le_byteshift.h",
	} {
		if _, ok := ht.Files[p]; !ok {
			t.Errorf("%s missing from the host tools", p)
		}
	}
	for _, p := range []string{"fs/pipe.c", "include/linux/fs.h", "kernel/sched/core.c", "include/linux/sched.h"} {
		if prog, ok := ht.Files[p]; ok {
			t.Errorf("%s is not host code (pulled in by %s)", p, prog)
		}
	}
	if os.Getenv("AUTOSEL_GUARD_DUMP") != "" {
		for p, prog := range ht.Files {
			t.Logf("%s <- %s", p, prog)
		}
	}
}
