package kselftest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinTable(t *testing.T) {
	tab, err := LoadTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"futex", "splice", "filesystems/epoll", "vm", "net"} {
		if tab.Target(want) == nil {
			t.Errorf("built-in table lacks target %s", want)
		}
	}
	frag := string(tab.ConfigFragment())
	if !strings.Contains(frag, "CONFIG_NET=y\n") || strings.Count(frag, "CONFIG_CHECKPOINT_RESTORE=y") != 1 {
		t.Errorf("config fragment: want every option once:\n%s", frag)
	}
}

// TestBuiltinTargetsExist checks each target against the 6.1 tree when it
// is there: the directory and the listed programs exist.
func TestBuiltinTargetsExist(t *testing.T) {
	root := "/var/tmp/autosel-bot/linux-6.1/tools/testing/selftests"
	if _, err := os.Stat(root); err != nil {
		t.Skip("no linux-6.1 tree")
	}
	tab, err := LoadTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range tab.Targets {
		mk, err := os.ReadFile(filepath.Join(root, tg.Name, "Makefile"))
		if err != nil {
			t.Errorf("target %s: %v", tg.Name, err)
			continue
		}
		for _, p := range tg.Programs {
			if !strings.Contains(string(mk), strings.TrimSuffix(p, ".sh")) {
				t.Errorf("target %s: program %s not in its Makefile", tg.Name, p)
			}
		}
	}
}

func TestLoadTableErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown target", "kselftests:\n  rules:\n    - {paths: [a/], targets: [nope], reason: r}\n", `unknown target "nope"`},
		{"no reason", "kselftests:\n  rules:\n    - {paths: [a/], targets: [futex]}\n", "needs paths, targets and a reason"},
		{"bad name", "kselftests:\n  targets:\n    - {name: ../x, seconds: 1}\n", "bad target name"},
		{"no seconds", "kselftests:\n  targets:\n    - {name: x}\n", "seconds must be > 0"},
		{"bad option", "kselftests:\n  targets:\n    - {name: x, seconds: 1, config: [NET=y]}\n", "bad config option"},
		{"bad program", "kselftests:\n  targets:\n    - {name: x, seconds: 1, programs: [a/b]}\n", "bad program"},
		{"unknown key", "kselftests:\n  targets:\n    - {name: x, seconds: 1, secs: 2}\n", "secs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "x.yaml")
			os.WriteFile(f, []byte(tc.yaml), 0o644)
			_, err := LoadTable([]string{f})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestLoadTableExtend(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.yaml")
	os.WriteFile(f, []byte(`kselftests:
  targets:
    - {name: futex, seconds: 5, doc: faster}
    - {name: rtc, seconds: 7}
  rules:
    - {paths: [drivers/rtc/], targets: [rtc], reason: rtc core}
`), 0o644)
	tab, err := LoadTable([]string{f})
	if err != nil {
		t.Fatal(err)
	}
	if tg := tab.Target("futex"); tg.Seconds != 5 || tg.Doc != "faster" {
		t.Errorf("futex not replaced: %+v", tg)
	}
	p := Select(tab, nil, []string{"drivers/rtc/interface.c"}, 0)
	if len(p.Chosen) != 1 || p.Chosen[0].Target.Name != "rtc" {
		t.Errorf("extension rule not used: %+v", p.Chosen)
	}
}

func TestMatchPath(t *testing.T) {
	tests := []struct {
		pat, file string
		want      bool
	}{
		{"kernel/futex/", "kernel/futex/core.c", true},
		{"kernel/futex/", "kernel/futexes.c", false},
		{"kernel/futex/*", "kernel/futex/core.c", true},
		{"kernel/futex/*", "kernel/futex/sub/x.c", false},
		{"fs/pipe.c", "fs/pipe.c", true},
		{"fs/pipe.c", "fs/pipe.h", false},
		{"fs/proc", "fs/proc/base.c", true},
		{"*/net/*", "drivers/net/x.c", true},
	}
	for _, tc := range tests {
		if got := matchPath(tc.pat, tc.file); got != tc.want {
			t.Errorf("matchPath(%q, %q) = %v, want %v", tc.pat, tc.file, got, tc.want)
		}
	}
}
