package patchguard

import "testing"

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"**/Makefile*", "Makefile", true},
		{"**/Makefile*", "fs/ext4/Makefile", true},
		{"**/Makefile*", "fs/Makefile.inc", true},
		{"**/Makefile*", "fs/makefile", false},
		{"scripts/**", "scripts/mod/file2alias.c", true},
		{"scripts/**", "fs/scripts/x", false},
		{"arch/*/tools/**", "arch/x86/tools/relocs.c", true},
		{"arch/*/tools/**", "arch/x86/boot/tools/build.c", false},
		{"**/*.sh", "scripts/x/y.sh", true},
		{"lib/gen_crc*", "lib/gen_crc32table.c", true},
		{"[", "x", false},
	}
	for _, tt := range tests {
		if got := matchGlob(tt.pattern, tt.name); got != tt.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

func TestIncludeProblem(t *testing.T) {
	tests := []struct {
		file, inc string
		angle     bool
		bad       bool
	}{
		{"fs/pipe.c", "internal.h", false, false},
		{"fs/pipe.c", "../mm/internal.h", false, false},
		{"fs/pipe.c", "../../x.h", false, true},
		{"fs/pipe.c", "/etc/passwd", false, true},
		{"fs/pipe.c", "linux/fs.h", true, false},
		{"fs/pipe.c", "../x.h", true, false},
		{"fs/pipe.c", "../../x.h", true, true},
		{"Makefile", "../x", false, true},
		{"drivers/a/b/c.c", "../../../../etc/passwd", false, true},
		{"drivers/a/b/c.c", "../../../include/x.h", false, false},
	}
	for _, tt := range tests {
		if got := includeProblem(tt.file, tt.inc, tt.angle) != ""; got != tt.bad {
			t.Errorf("includeProblem(%q, %q, %v) bad=%v, want %v", tt.file, tt.inc, tt.angle, got, tt.bad)
		}
	}
}
