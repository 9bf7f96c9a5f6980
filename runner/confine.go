package runner

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// QEMU boots a kernel the patch author wrote; a guest escape must land in
// a process that can do little. QEMU runs with its own seccomp filter
// (qemuSandbox), without network (no NIC: -nodefaults, -nic none), under
// rlimits (qemuLimits), and, when the bot is root, as an unprivileged
// user (qemuCredential) from its first instruction: QEMU's -runas drops
// privileges after the seccomp filter is installed, which
// elevateprivileges=deny forbids, so the runner starts QEMU as that user
// instead. Files QEMU needs are handed over as open descriptors
// (/dev/fd/N, -add-fd), so the user needs no access to the work dir.

// qemuSandbox is QEMU's -sandbox option: obsolete system calls, setuid
// and friends, fork/exec and scheduler/affinity changes are refused.
const qemuSandbox = "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny"

// defaultQEMUUser is the user QEMU runs as when the bot is root and
// runner.qemu_user is unset.
const defaultQEMUUser = "nobody"

// qemuCredential returns the credential QEMU is started with: nil when
// the bot is not root (QEMU runs as the bot's own unprivileged user),
// else name's uid and primary gid with no supplementary group but kvm
// (for /dev/kvm).
func qemuCredential(name string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if name == "" {
		name = defaultQEMUUser
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("%w: user %q for QEMU: %v", errQEMU, name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil || uid == 0 {
		return nil, fmt.Errorf("%w: user %q for QEMU: uid %s, gid %s: not an unprivileged user", errQEMU, name, u.Uid, u.Gid)
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
	if g, err := user.LookupGroup("kvm"); err == nil {
		if kvm, err := strconv.ParseUint(g.Gid, 10, 32); err == nil {
			cred.Groups = append(cred.Groups, uint32(kvm))
		}
	}
	return cred, nil
}

// qemuLimits is the prlimit prefix QEMU runs under: address space for
// the guest's memory plus QEMU's own (the TCG code buffer, thread
// stacks), no core dumps, no file bigger than the logs, and with a
// dedicated user a process (thread) cap.
func qemuLimits(memMB int, dedicated bool) []string {
	as := (int64(memMB) + 6<<10) << 20
	a := []string{"prlimit", fmt.Sprintf("--as=%d", as), "--core=0", fmt.Sprintf("--fsize=%d", 64<<20)}
	if dedicated {
		a = append(a, "--nproc=1024")
	}
	return append(a, "--")
}
