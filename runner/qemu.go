package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// vmSpec is one QEMU boot.
type vmSpec struct {
	qemu    string
	memMB   int
	cpus    int
	accel   string // kvm or tcg
	kernel  string
	initrd  string
	cmdline string
	// dir receives console.log and results.log.
	dir string
	// boot bounds QEMU start -> init's hello on the results port.
	boot time.Duration
	// total bounds the whole run.
	total time.Duration
	// silence stops a VM that printed nothing on either port this long.
	silence time.Duration
	// head and tail bound the console kept (0: consoleHead, consoleTail).
	head, tail int
	// user is who QEMU runs as when the bot is root ("": nobody).
	user string
	// resChardev is the results port's file ("": results.log in dir).
	resChardev string
}

func (s *vmSpec) bounds() (head, tail int) {
	head, tail = s.head, s.tail
	if head <= 0 {
		head = consoleHead
	}
	if tail <= 0 {
		tail = consoleTail
	}
	return head, tail
}

// vmOutcome is what a boot produced.
type vmOutcome struct {
	console []byte
	results []byte
	// stopped is set when the host killed the VM; why says why.
	stopped bool
	why     string
	// exitErr is QEMU's exit error when it exited by itself.
	exitErr error
	stderr  string
	elapsed time.Duration
}

// kernelCmdline is the guest kernel command line. printk.devkmsg=on lets
// init's markers through unthrottled; panic=-1 with -no-reboot turns a
// panic into a QEMU exit. no_timer_check skips the early IO-APIC timer
// test, which an emulated (TCG) vCPU descheduled on a busy host fails with
// "IO-APIC + timer doesn't work" (seen in CI), a panic that says nothing
// about the patch.
const kernelCmdline = "console=ttyS0,115200 rdinit=/init panic=-1 printk.devkmsg=on " +
	"loglevel=7 softlockup_panic=0 hung_task_panic=0 tsc=reliable no_timer_check"

func (s *vmSpec) args() []string {
	a := []string{
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-m", strconv.Itoa(s.memMB), "-smp", strconv.Itoa(s.cpus),
		// Confinement (confine.go): QEMU's seccomp filter, no network.
		"-sandbox", qemuSandbox, "-nic", "none",
		"-kernel", s.kernel, "-initrd", s.initrd, "-append", s.cmdline,
		// The console goes to QEMU's stdout, a pipe the runner reads into
		// a bounded capture (console.log is written from it).
		"-chardev", "stdio,id=con,signal=off",
		"-serial", "chardev:con",
		// A ',' in an option value is written ",,".
		// append=on: QEMU truncates a file it opens otherwise, which a
		// pipe passed with -add-fd refuses.
		"-chardev", "file,id=res,append=on,path=" + strings.ReplaceAll(s.results(), ",", ",,"),
		"-serial", "chardev:res",
	}
	if s.accel == "kvm" {
		a = append(a, "-accel", "kvm", "-cpu", "host")
	} else {
		a = append(a, "-accel", "tcg,thread=multi", "-cpu", "max")
	}
	return a
}

func (s *vmSpec) results() string {
	if s.resChardev != "" {
		return s.resChardev
	}
	return filepath.Join(s.dir, "results.log")
}

// errQEMU marks infrastructure failures: QEMU could not run at all.
var errQEMU = errors.New("qemu failed")

// runVM boots the VM and watches both serial ports until QEMU exits, the
// guest is silent too long, init does not start in time, the total
// deadline passes, or the guest floods the results port. Only a QEMU
// that cannot start (or dies before the guest printed anything) is an
// error. The console is read from a pipe into a capture keeping its head
// and tail (memory and console.log are bounded whatever the guest
// prints); the results log is read up to the same bound.
func runVM(ctx context.Context, s vmSpec) (*vmOutcome, error) {
	conPath := filepath.Join(s.dir, "console.log")
	resPath := filepath.Join(s.dir, "results.log")
	head, tail := s.bounds()
	maxResults := int64(head + tail)
	con := newCapture(head, tail)
	res := newCapture(int(maxResults), 0)
	stderr := newCapture(32<<10, 32<<10)
	q, err := startQEMU(s, con, res, stderr)
	if err != nil {
		return nil, err
	}
	cmd := q.cmd
	start := time.Now()
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		q.wait()
		exited <- err
	}()
	kill := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	out := &vmOutcome{}
	var lastSize int64
	lastGrowth := time.Now()
	hello := false
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
loop:
	for {
		select {
		case err := <-exited:
			out.exitErr = err
			break loop
		case <-ctx.Done():
			kill()
			return nil, ctx.Err()
		case <-tick.C:
		}
		resSize := res.Total()
		size := con.Total() + resSize
		if size != lastSize {
			lastSize, lastGrowth = size, time.Now()
			if !hello && bytes.Contains(res.Bytes(), []byte(markHello)) {
				hello = true
			}
		}
		switch el := time.Since(start); {
		case resSize > maxResults:
			out.stopped, out.why = true, fmt.Sprintf("the guest wrote more than %d bytes to the results port", maxResults)
		case !hello && el > s.boot:
			out.stopped, out.why = true, fmt.Sprintf("init did not start within %s", s.boot)
		case el > s.total:
			out.stopped, out.why = true, fmt.Sprintf("run exceeded its %s deadline", s.total)
		case time.Since(lastGrowth) > s.silence:
			out.stopped, out.why = true, fmt.Sprintf("no output on either serial port for %s", s.silence)
		}
		if out.stopped {
			kill()
			break loop
		}
	}
	out.elapsed = time.Since(start)
	out.console = con.Bytes()
	if err := os.WriteFile(conPath, out.console, 0o644); err != nil {
		return nil, err
	}
	out.results = res.Bytes()
	if err := os.WriteFile(resPath, out.results, 0o644); err != nil {
		return nil, err
	}
	out.stderr = strings.TrimSpace(string(stderr.Bytes()))
	if !out.stopped && out.exitErr != nil && len(out.console) == 0 {
		return nil, fmt.Errorf("%w: %v: %s", errQEMU, out.exitErr, out.stderr)
	}
	if !out.stopped && out.exitErr == nil && len(out.console) == 0 && len(out.results) == 0 {
		return nil, fmt.Errorf("%w: exited without any guest output: %s", errQEMU, out.stderr)
	}
	if !out.stopped {
		out.why = "QEMU exited"
		if out.exitErr != nil {
			out.why = fmt.Sprintf("QEMU exited: %v", out.exitErr)
		}
	}
	return out, nil
}

// fdArgs are QEMU's arguments as startQEMU runs it: the kernel and
// initrd read from descriptors 3 and 4, the results port written to
// descriptor 5 (fd set 1).
func (s vmSpec) fdArgs() []string {
	s.kernel, s.initrd, s.resChardev = "/dev/fd/3", "/dev/fd/4", "/dev/fdset/1"
	return append(s.args(), "-add-fd", "fd=5,set=1")
}

// qemuProc is a started QEMU and the copy of its results port.
type qemuProc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the results pipe is drained
}

// wait waits for the results pipe to be drained (QEMU gone), at most 5s.
func (q *qemuProc) wait() {
	select {
	case <-q.done:
	case <-time.After(5 * time.Second):
	}
}

// startQEMU starts s's QEMU confined (confine.go): under rlimits, as the
// QEMU user when the bot is root, with the kernel and initrd passed as
// open descriptors 3 and 4 and the results port a pipe on descriptor 5
// (-add-fd), copied into res; the console (stdout) goes to con.
func startQEMU(s vmSpec, con, res, stderr io.Writer) (*qemuProc, error) {
	cred, err := qemuCredential(s.user)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, p := range []string{s.kernel, s.initrd} {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errQEMU, err)
		}
		files = append(files, f)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	files = append(files, w)
	argv := append(append(qemuLimits(s.memMB, cred != nil), s.qemu), s.fdArgs()...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = con, stderr
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		r.Close()
		return nil, fmt.Errorf("%w: %s: %v", errQEMU, s.qemu, err)
	}
	q := &qemuProc{cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(q.done)
		defer r.Close()
		io.Copy(res, r)
	}()
	return q, nil
}
