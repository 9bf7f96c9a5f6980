// Package lavalab starts the LAVA lab that .ci/setup.d/60-lava.sh
// installed (Debian's lava-server and lava-dispatcher) for tests: the
// PostgreSQL cluster if it is down, gunicorn serving lava_server.wsgi on
// 127.0.0.1:8000 (eventlet workers), the event publisher and the scheduler
// on loopback, and one lava-worker ("vm") with a short ping interval. No
// systemd: the processes are children of the test binary, each in its own
// process group, and Stop ends them (and the PostgreSQL cluster if Start
// started it). A server already answering on 127.0.0.1:8000 is used as it
// is and left running; so is the lab of another process that holds the
// lab lock. Jobs a lab that died left unfinished are ended (Incomplete)
// before a new one starts: nothing is left to run them.
package lavalab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/flock"
)

// CIFile is where the setup script leaves the lab's URL and tokens.
const CIFile = "/var/lib/lava-server/autosel-ci.json"

// Info describes the lab.
type Info struct {
	URL         string `json:"url"`
	Token       string `json:"token"`
	User        string `json:"user"`
	Worker      string `json:"worker"`
	WorkerToken string `json:"worker_token"`
	DeviceType  string `json:"device_type"`
}

// Lab is a running lab.
type Lab struct {
	Info
	dir     string
	procs   []*exec.Cmd
	worker  *exec.Cmd
	stopPG  string // cluster version to stop, if Start started it
	reused  bool
	stale   []int64
	unlock  func() // releases the lab lock (Start's)
	mu      sync.Mutex
	started time.Duration
}

// env is the services' environment: Debian's python3 first on PATH.
func env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH=/usr/bin:/bin:/usr/sbin:/sbin")
}

// Missing says what is not installed, or "".
func Missing() string {
	for _, p := range []string{"/usr/bin/gunicorn3", "/usr/bin/lava-server", "/usr/bin/lava-worker", "/usr/bin/pg_ctlcluster", CIFile} {
		if _, err := os.Stat(p); err != nil {
			return p + " missing (.ci/setup.d/60-lava.sh)"
		}
	}
	return ""
}

// Start starts the lab; dir receives the services' logs.
func Start(ctx context.Context, dir string) (*Lab, error) {
	if m := Missing(); m != "" {
		return nil, errors.New(m)
	}
	begin := time.Now()
	b, err := os.ReadFile(CIFile)
	if err != nil {
		return nil, err
	}
	l := &Lab{dir: dir}
	if err := json.Unmarshal(b, &l.Info); err != nil {
		return nil, fmt.Errorf("%s: %w", CIFile, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := claim(ctx, l.URL, filepath.Join(os.TempDir(), "autosel-lavalab.lock"))
	if err != nil {
		return nil, err
	}
	if unlock == nil {
		l.reused = true
		return l, nil
	}
	l.unlock = unlock
	if err := l.startPG(ctx); err != nil {
		l.Stop()
		return nil, err
	}
	stale, err := failStale(ctx)
	if err != nil {
		l.Stop()
		return nil, err
	}
	l.stale = stale
	steps := []struct {
		name string
		args []string
	}{
		{"gunicorn", []string{"gunicorn3", "lava_server.wsgi", "--worker-class", "eventlet", "--workers", "2",
			"--bind", "127.0.0.1:8000", "-u", "lavaserver", "-g", "lavaserver", "--timeout", "120",
			"--log-file", filepath.Join(dir, "gunicorn.log")}},
		{"publisher", []string{"lava-server", "manage", "lava-publisher", "--host", "127.0.0.1", "--log-file", filepath.Join(dir, "publisher.log")}},
		{"scheduler", []string{"lava-server", "manage", "lava-scheduler", "--event-url", "tcp://127.0.0.1:5500", "--log-file", filepath.Join(dir, "scheduler.log")}},
	}
	for _, s := range steps {
		c, err := l.spawn(s.name, s.args)
		if err != nil {
			l.Stop()
			return nil, err
		}
		l.procs = append(l.procs, c)
	}
	deadline := time.Now().Add(90 * time.Second)
	for !apiUp(l.URL) {
		if time.Now().After(deadline) {
			l.Stop()
			return nil, fmt.Errorf("lavalab: the API did not answer within 90 s (logs in %s)", dir)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err := l.StartWorker(ctx); err != nil {
		l.Stop()
		return nil, err
	}
	l.started = time.Since(begin)
	return l, nil
}

// claim decides who runs the lab: one lab per machine. A lab answering
// on url is used as it is (nil unlock). Otherwise the process that takes
// the lab lock at lockPath starts the lab and holds the lock until Stop
// (unlock releases it); a process that finds the lock taken waits for
// that lab's API (slow to answer under load), or for the lock if its
// holder goes away, and never starts a second lab nor ends the first
// one's jobs as stale.
func claim(ctx context.Context, url, lockPath string) (unlock func(), err error) {
	for {
		if apiUp(url) {
			return nil, nil
		}
		try, cancel := context.WithTimeout(ctx, time.Second)
		unlock, err := flock.Lock(try, lockPath)
		cancel()
		switch {
		case err == nil && apiUp(url):
			unlock() // a lab without the lock (started by hand) answers now
			return nil, nil
		case err == nil:
			return unlock, nil
		case ctx.Err() != nil:
			return nil, fmt.Errorf("lavalab: another process holds the lab lock and its API did not answer: %w", ctx.Err())
		case !errors.Is(err, context.DeadlineExceeded):
			return nil, fmt.Errorf("lavalab: %w", err)
		}
	}
}

// StartupTime is how long Start took to get the lab answering.
func (l *Lab) StartupTime() time.Duration { return l.started }

// Reused reports whether a lab that was already running is used.
func (l *Lab) Reused() bool { return l.reused }

// Stale lists the jobs an earlier lab left unfinished, which Start ended.
func (l *Lab) Stale() []int64 { return l.stale }

// failStaleScript ends every unfinished job but health checks the way
// `lava-server manage jobs fail` ends one (Incomplete; a job being
// cancelled: Canceled), and prints their ids. It runs before the
// scheduler starts, by the process holding the lab lock: the clients,
// file servers and worker of those jobs died with the lab that ran them,
// and the scheduler would otherwise hand them the devices until their
// LAVA timeouts (20 minutes of a TCG boot that cannot fetch its kernel).
const failStaleScript = `from django.db import transaction
from lava_scheduler_app.models import TestJob
with transaction.atomic():
    for j in TestJob.objects.select_for_update().exclude(state=TestJob.STATE_FINISHED).exclude(health_check=True):
        j.go_state_finished(TestJob.HEALTH_INCOMPLETE)
        j.save()
        print("stale", j.id)
`

// failStale runs failStaleScript and returns the ids of the jobs it ended.
func failStale(ctx context.Context) ([]int64, error) {
	c := exec.CommandContext(ctx, "lava-server", "manage", "shell", "-c", failStaleScript)
	c.Env = env()
	out, err := c.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("lavalab: ending the jobs an earlier lab left: %w: %s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("lavalab: ending the jobs an earlier lab left: %w", err)
	}
	var ids []int64
	for _, line := range strings.Split(string(out), "\n") {
		var id int64
		if _, err := fmt.Sscanf(line, "stale %d", &id); err == nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func (l *Lab) spawn(name string, args []string) (*exec.Cmd, error) {
	out, err := os.Create(filepath.Join(l.dir, name+".out"))
	if err != nil {
		return nil, err
	}
	c := exec.Command(args[0], args[1:]...)
	c.Env, c.Dir = env(), l.dir
	c.Stdout, c.Stderr = out, out
	// Own process group (Stop ends it whole); killed with the test binary.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := c.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("lavalab: start %s: %w", name, err)
	}
	go func() { c.Wait(); out.Close() }()
	return c, nil
}

// StartWorker starts the lava-worker (again, after KillWorker) and waits
// until the server sees it online.
func (l *Lab) StartWorker(ctx context.Context) error {
	if l.reused {
		return errors.New("lavalab: the worker of a lab already running is not ours")
	}
	c, err := l.spawn("worker", []string{"lava-worker", "--name", l.Worker, "--url", l.URL, "--ws-url", "http://127.0.0.1:8001/ws/",
		"--token", l.WorkerToken, "--ping-interval", "2", "--job-log-interval", "1",
		"--worker-dir", filepath.Join(l.dir, "worker"), "--log-file", filepath.Join(l.dir, "worker.log")})
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.worker = c
	l.mu.Unlock()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if st, _ := l.workerState(ctx); st == "Online" {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("lavalab: the worker did not come online within 60 s")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// KillWorker kills the lava-worker process with SIGKILL (the lava-run of
// a job it started keeps running: LAVA runs it in a process group of its
// own).
func (l *Lab) KillWorker() error {
	l.mu.Lock()
	c := l.worker
	l.worker = nil
	l.mu.Unlock()
	if c == nil || c.Process == nil {
		return errors.New("lavalab: no worker running")
	}
	return c.Process.Signal(syscall.SIGKILL)
}

func (l *Lab) workerState(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.URL+"api/v0.2/workers/"+l.Worker+"/", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var w struct {
		State string `json:"state"`
	}
	err = json.NewDecoder(resp.Body).Decode(&w)
	return w.State, err
}

func apiUp(url string) bool {
	c := &http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(url + "api/v0.2/")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (l *Lab) startPG(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "pg_lsclusters", "-h").Output()
	if err != nil {
		return fmt.Errorf("lavalab: pg_lsclusters: %w", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[1] != "main" {
			continue
		}
		if f[3] == "online" {
			return nil
		}
		if b, err := exec.CommandContext(ctx, "pg_ctlcluster", f[0], "main", "start").CombinedOutput(); err != nil {
			return fmt.Errorf("lavalab: pg_ctlcluster %s main start: %v: %s", f[0], err, b)
		}
		l.stopPG = f[0]
		return nil
	}
	return errors.New("lavalab: no PostgreSQL cluster main")
}

// Stop ends the services Start started (worker first), and the PostgreSQL
// cluster if Start started it.
func (l *Lab) Stop() {
	l.mu.Lock()
	procs := append([]*exec.Cmd(nil), l.procs...)
	if l.worker != nil {
		procs = append([]*exec.Cmd{l.worker}, procs...)
		l.worker = nil
	}
	l.procs = nil
	l.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		stopGroup(procs[i])
	}
	if l.stopPG != "" {
		exec.Command("pg_ctlcluster", l.stopPG, "main", "stop").Run()
		l.stopPG = ""
	}
	if l.unlock != nil {
		l.unlock()
		l.unlock = nil
	}
}

// stopGroup sends SIGTERM to c's process group, then SIGKILL.
func stopGroup(c *exec.Cmd) {
	if c.Process == nil {
		return
	}
	pg := c.Process.Pid
	syscall.Kill(-pg, syscall.SIGTERM)
	for i := 0; i < 50; i++ {
		if syscall.Kill(-pg, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	syscall.Kill(-pg, syscall.SIGKILL)
}
