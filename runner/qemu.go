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
		"-kernel", s.kernel, "-initrd", s.initrd, "-append", s.cmdline,
		// The console goes to QEMU's stdout, a pipe the runner reads into
		// a bounded capture (console.log is written from it).
		"-chardev", "stdio,id=con,signal=off",
		"-serial", "chardev:con",
		// A ',' in an option value is written ",,".
		"-chardev", "file,id=res,path=" + strings.ReplaceAll(filepath.Join(s.dir, "results.log"), ",", ",,"),
		"-serial", "chardev:res",
	}
	if s.accel == "kvm" {
		a = append(a, "-accel", "kvm", "-cpu", "host")
	} else {
		a = append(a, "-accel", "tcg,thread=multi", "-cpu", "max")
	}
	return a
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
	for _, p := range []string{conPath, resPath} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return nil, err
		}
	}
	head, tail := s.bounds()
	maxResults := int64(head + tail)
	con := newCapture(head, tail)
	stderr := newCapture(32<<10, 32<<10)
	cmd := exec.Command(s.qemu, s.args()...)
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = con, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errQEMU, s.qemu, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
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
		resSize := fileSize(resPath)
		size := con.Total() + resSize
		if size != lastSize {
			lastSize, lastGrowth = size, time.Now()
			if !hello {
				if b, err := readHead(resPath, 64<<10); err == nil && bytes.Contains(b, []byte(markHello)) {
					hello = true
				}
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
	out.results, _ = readHead(resPath, maxResults)
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

// readHead reads at most n bytes of the file p.
func readHead(p string, n int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}
