package lockctx

import (
	"strings"
	"testing"
)

func TestFileMacros(t *testing.T) {
	tests := []struct {
		name, src, macro string
		calls            []string
		line             int // the line of the macro's first call
	}{
		{"one line", "#define alloc_netdev(a, b, c, d) alloc_netdev_mqs(a, b, c, d, 1, 1)\n",
			"alloc_netdev", []string{"alloc_netdev_mqs"}, 1},
		{"parameters on two lines", "\n#define scsi_execute(sdev, cmd, sense,\t\\\n\t\tsshdr, resid)\t\\\n({\t\\\n\t__scsi_execute(sdev, cmd, sense, sshdr, resid);\t\\\n})\n",
			"scsi_execute", []string{"__scsi_execute"}, 5},
		{"do while", "#define hci_dev_lock(d) do { mutex_lock(&d->lock); } while (0)\n",
			"hci_dev_lock", []string{"mutex_lock"}, 1},
		{"object-like", "#define FOO bar(1)\n", "FOO", nil, 0},
		{"no call", "#define max2(a, b) ((a) > (b) ? (a) : (b))\n", "max2", nil, 0},
		{"unclosed list", "#define broken(a, \\\n b\n", "broken", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := fileMacros("include/x.h", []byte(tt.src))[tt.macro]
			if !ok {
				if tt.calls != nil {
					t.Fatalf("macro %s not found", tt.macro)
				}
				return
			}
			var names []string
			for _, c := range d.fn.Calls {
				names = append(names, c.Name)
			}
			if got := strings.Join(names, ","); got != strings.Join(tt.calls, ",") {
				t.Errorf("calls = %s, want %s", got, strings.Join(tt.calls, ","))
			}
			if d.fn.Calls[0].Line != tt.line {
				t.Errorf("first call on line %d, want %d", d.fn.Calls[0].Line, tt.line)
			}
		})
	}
}

func TestDefinedMacros(t *testing.T) {
	src := "#define a(x) f(x)\n# define  b(y)\\\n g(y)\n#define C 1\n/* define d(x) */\n#ifdef X\n#  define e( x) h(x)\n#define f (x)\n#endif\n"
	got := definedMacros([]byte(src))
	for _, n := range []string{"a", "b", "e"} {
		if !got[n] {
			t.Errorf("%s not found", n)
		}
	}
	for _, n := range []string{"C", "d", "f"} {
		if got[n] {
			t.Errorf("%s found", n)
		}
	}
}
