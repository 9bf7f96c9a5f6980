package runner

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// haltFirmware writes a 64 KiB PC BIOS image that halts forever: a quiet
// guest, so the test looks at QEMU itself.
func haltFirmware(t *testing.T) string {
	t.Helper()
	img := make([]byte, 64<<10)
	copy(img[0xFFF0:], []byte{0xFA, 0xF4, 0xEB, 0xFD}) // cli; hlt; jmp hlt
	p := filepath.Join(publicDir(t), "halt.bin")
	if err := os.WriteFile(p, img, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestQEMUConfined (issue 37 points 3 and 7): the QEMU the runner starts
// has the -sandbox options and no NIC on its command line, runs with a
// seccomp filter, no capabilities, no_new_privs, not as root, and under
// an address-space limit.
func TestQEMUConfined(t *testing.T) {
	spec := fakeSpec(t, realQEMU(t, haltFirmware(t)))
	var con, res, stderr bytes.Buffer
	q, err := startQEMU(spec, &con, &res, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	pid := q.cmd.Process.Pid
	defer func() {
		q.cmd.Process.Kill()
		q.cmd.Wait()
	}()
	proc := fmt.Sprintf("/proc/%d/", pid)
	var status string
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(proc + "status")
		status = string(b)
		if exe, _ := os.Readlink(proc + "exe"); strings.Contains(exe, "qemu-system") && strings.Contains(status, "Seccomp:\t2") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("QEMU not up with a seccomp filter: %s\nstderr: %s", status, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmdline, err := os.ReadFile(proc + "cmdline")
	if err != nil {
		t.Fatal(err)
	}
	argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	joined := strings.Join(argv, " ")
	for _, want := range []string{"-sandbox on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny", "-nic none", "-nodefaults"} {
		if !strings.Contains(joined, want) {
			t.Errorf("QEMU argv lacks %q: %s", want, joined)
		}
	}
	field := func(name string) string {
		for _, l := range strings.Split(status, "\n") {
			if v, ok := strings.CutPrefix(l, name+":"); ok {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	checks := []struct{ name, bad, want string }{
		{"Uid", "0", ""},
		{"Seccomp", "", "2"},
		{"CapEff", "", "0000000000000000"},
		{"NoNewPrivs", "", "1"},
	}
	for _, c := range checks {
		v := field(c.name)
		if c.want != "" && v != c.want {
			t.Errorf("%s: %q, want %q", c.name, v, c.want)
		}
		if c.bad != "" && strings.Fields(v)[0] == c.bad {
			t.Errorf("%s: %q: QEMU runs as root", c.name, v)
		}
	}
	limits, err := os.ReadFile(proc + "limits")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(limits), "\n") {
		if strings.HasPrefix(l, "Max address space") && strings.Contains(l, "unlimited") {
			t.Errorf("no address-space limit: %s", l)
		}
	}
}
