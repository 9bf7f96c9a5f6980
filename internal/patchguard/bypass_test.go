package patchguard

import (
	"strings"
	"testing"
)

// TestContentBypasses: the guard bypasses of issue 37 point 5 that a
// reading of the text as the preprocessor sees it catches. The others
// (#include MACRO, __has_include(MACRO), a GAS .macro building .incbin)
// are accepted here and contained by the sandbox
// (internal/sandbox TestIncludeBypassesContained).
func TestContentBypasses(t *testing.T) {
	configs := "asm (\n\"\t.pushsection .rodata, \\\"a\\\"\t\\n\"\n\"\t.incbin \\\"kernel/config_data.gz\\\"\t\\n\"\n\"\t.popsection\t\\n\"\n);\n"
	tests := []struct {
		name, file, old, new string
		want                 string // "" = accepted
	}{
		{"comment in directive", "fs/pipe.c", "", "#/**/include \"/etc/passwd\"\n", "absolute host path"},
		{"multi-line comment in directive", "fs/pipe.c", "", "#/* a\n b */include \"/etc/passwd\"\n", "absolute host path"},
		{"digraph", "fs/pipe.c", "", "%:include \"/etc/passwd\"\n", "absolute host path"},
		{"digraph with blanks", "fs/pipe.c", "", "  %: include </etc/passwd>\n", "absolute host path"},
		{"trigraph", "fs/pipe.c", "", "??=include \"/etc/passwd\"\n", "absolute host path"},
		{"continuation", "fs/pipe.c", "", "#inc\\\nlude \"/etc/passwd\"\n", "absolute host path"},
		{"continuation with blanks", "fs/pipe.c", "", "#inc\\  \r\nlude \"../../../etc/passwd\"\n", "leaves the tree"},
		{"continued path", "fs/pipe.c", "", "#include \"/et\\\nc/passwd\"\n", "absolute host path"},
		{"import", "fs/pipe.c", "", "#import \"/etc/passwd\"\n", "absolute host path"},
		{"import in tree", "fs/pipe.c", "", "#import \"internal.h\"\n", ""},
		{"asm incbin", "fs/pipe.c", "", "asm(\".incbin \\\"/etc/passwd\\\"\");\n", reasonIncbin},
		{"asm incbin upper case", "fs/pipe.c", "", "asm(\".INCBIN \\\"/etc/passwd\\\"\");\n", reasonIncbin},
		{"asm incbin concatenated", "fs/pipe.c", "", "asm(\".inc\" \"bin \\\"/etc/passwd\\\"\");\n", reasonIncbin},
		{"asm incbin over lines", "fs/pipe.c", "", "asm(\".inc\"\n /* x */ \"bin \\\"/etc/passwd\\\"\");\n", reasonIncbin},
		{"asm incbin escaped", "fs/pipe.c", "", "asm(\".in\\143bin \\\"/etc/passwd\\\"\");\n", reasonIncbin},
		{"asm incbin hex escape", "fs/pipe.c", "", "asm(\".in\\x63\" \"bin \\\"/etc/passwd\\\"\");\n", reasonIncbin},
		{"asm include", "fs/pipe.c", "", "asm(\".include \\\"/etc/passwd\\\"\");\n", "absolute host path"},
		{"asm include concatenated", "fs/pipe.c", "", "asm(\".incl\" \"ude \\\"/etc/passwd\\\"\");\n", "absolute host path"},
		{"pragma dependency", "fs/pipe.c", "", "#pragma GCC dependency \"/etc/shadow\"\n", reasonDep},
		{"pragma dependency digraph", "fs/pipe.c", "", "%:pragma /**/ GCC dependency \"x\"\n", reasonDep},
		{"_Pragma dependency", "fs/pipe.c", "", "_Pragma(\"GCC dependency \\\"/etc/shadow\\\"\")\n", reasonDep},
		{"lds INCLUDE", "arch/x86/kernel/vmlinux.lds.S", "", "INCLUDE /etc/passwd\n", reasonLd},
		{"lds INPUT", "arch/x86/kernel/vmlinux.lds.S", "", "SECTIONS { INPUT(/etc/passwd) }\n", reasonLd},
		{"lds GROUP in a plain script", "arch/arm/boot/bootp/bootp.lds", "", "GROUP ( /etc/passwd )\n", reasonLd},
		{"lds header", "include/asm-generic/vmlinux.lds.h", "", "#define X INCLUDE /etc/passwd\n", reasonLd},
		{"lds continued keyword", "arch/x86/kernel/vmlinux.lds.S", "", "INCL\\\nUDE /etc/passwd\n", reasonLd},
		// Accepted: a computed include (the tree has dozens; the sandbox
		// contains it), INPUT() as a C macro, near misses.
		{"include macro", "fs/pipe.c", "", "#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)\n", ""},
		{"INPUT macro in C", "drivers/pinctrl/meson/pinctrl-meson-a1.c", "", "\tINPUT(GPIOA_0),\n", ""},
		{"percent in a comment", "fs/pipe.c", "", "/* 0%: no signal */\n", ""},
		// Refused, as before: each physical line is still matched as
		// written.
		{"include in a string", "fs/pipe.c", "", "pr_info(\"#include \\\"/etc/passwd\\\" is refused\");\n", "absolute host path"},
		{"include in a comment", "fs/pipe.c", "", "// #include \"/etc/passwd\" was refused\nint x;\n", "absolute host path"},
		{"apostrophe in asm", "arch/x86/boot/a.S", "", "movb $'a, %al\n#include \"/etc/passwd\"\n", "absolute host path"},
		{"kept incbin, changed neighbour", "kernel/configs.c", configs, strings.Replace(configs, ".rodata", ".data", 1), ""},
		{"kept incbin, changed path", "kernel/configs.c", configs, strings.Replace(configs, "kernel/config_data.gz", "/etc/passwd", 1), reasonIncbin},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := contentRefusals(tt.file, []byte(tt.old), []byte(tt.new))
			var all []string
			for _, r := range rs {
				all = append(all, r.Error())
			}
			joined := strings.Join(all, "\n")
			switch {
			case tt.want == "" && len(rs) > 0:
				t.Fatalf("refused:\n%s", joined)
			case tt.want != "" && !strings.Contains(joined, tt.want):
				t.Fatalf("refusals:\n%s\nwant %q", joined, tt.want)
			}
		})
	}
}
