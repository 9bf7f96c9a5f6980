package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// accelProbe is the cached outcome of probing KVM.
type accelProbe struct {
	KVM     bool      `json:"kvm"`
	Reason  string    `json:"reason"`
	Host    string    `json:"host"`
	QEMU    string    `json:"qemu"`
	Checked time.Time `json:"checked"`
}

// accelProbeTTL bounds how long a probe outcome is trusted.
const accelProbeTTL = 7 * 24 * time.Hour

func hostRelease() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	return b.String()
}

// resolveAccel returns "kvm" or "tcg". With accel auto it probes KVM by
// booting the given kernel with an empty suite under a short timeout
// (a /dev/kvm that exists is not enough: nested guests can hang), and
// caches the outcome in the work dir.
func (l *Local) resolveAccel(ctx context.Context, kernel string) (string, error) {
	switch l.opts.Accel {
	case "kvm", "tcg":
		return l.opts.Accel, nil
	case "auto":
	default:
		return "", fmt.Errorf("runner: accel %q: want auto, kvm or tcg", l.opts.Accel)
	}
	l.probeMu.Lock()
	defer l.probeMu.Unlock()
	cache := filepath.Join(l.opts.WorkDir, "accel-probe.json")
	host := hostRelease()
	var p accelProbe
	if b, err := os.ReadFile(cache); err == nil && json.Unmarshal(b, &p) == nil &&
		p.Host == host && p.QEMU == l.opts.QEMU && time.Since(p.Checked) < accelProbeTTL {
		return accelName(p.KVM), nil
	}
	p = accelProbe{Host: host, QEMU: l.opts.QEMU, Checked: time.Now()}
	if f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0); err != nil {
		p.Reason = "no usable /dev/kvm: " + err.Error()
	} else {
		f.Close()
		ok, why, err := l.probeKVM(ctx, kernel)
		if err != nil && ctx.Err() != nil {
			return "", ctx.Err()
		}
		p.KVM, p.Reason = ok, why
	}
	l.opts.Log.Info("accelerator probed", "kvm", p.KVM, "reason", p.Reason)
	b, _ := json.MarshalIndent(p, "", "  ")
	os.MkdirAll(l.opts.WorkDir, 0o755)
	if err := writeFileAtomic(cache, b, 0o644); err != nil {
		return "", err
	}
	return accelName(p.KVM), nil
}

func accelName(kvm bool) string {
	if kvm {
		return "kvm"
	}
	return "tcg"
}

// probeKVM boots kernel under KVM with init and no tests.
func (l *Local) probeKVM(ctx context.Context, kernel string) (bool, string, error) {
	dir, err := os.MkdirTemp(l.opts.WorkDir, "probe-")
	if err != nil {
		return false, "", err
	}
	defer os.RemoveAll(dir)
	initrd, err := l.initramfs(ctx, dir, nil, nil, 1)
	if err != nil {
		return false, "", err
	}
	out, err := runVM(ctx, vmSpec{
		qemu: l.opts.QEMU, memMB: l.opts.MemoryMB, cpus: l.opts.CPUs, accel: "kvm",
		kernel: kernel, initrd: initrd, cmdline: kernelCmdline, dir: dir, user: l.opts.QEMUUser,
		boot: l.opts.KVMProbeTimeout, total: l.opts.KVMProbeTimeout, silence: l.opts.KVMProbeTimeout,
	})
	if err != nil {
		return false, "KVM boot failed: " + err.Error(), err
	}
	if parseChannel(out.results).Done {
		return true, fmt.Sprintf("KVM guest booted in %s", out.elapsed.Round(time.Millisecond)), nil
	}
	return false, "KVM guest did not finish booting: " + out.why, nil
}
