package stable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// git runs git commands in one repository directory. Every command gets the
// caller's context (cancellation kills git), a fixed identity for the
// commits it may create, and no user/system configuration that could change
// its output (pagers, colour, hooks paths, advice).
type git struct {
	dir string
	env []string
}

// gitError is a failed git command with its stderr, so callers can report
// what went wrong without re-running it.
type gitError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if len(msg) > 2000 {
		msg = msg[:2000] + "..."
	}
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.args, " "), e.err, msg)
}

func (e *gitError) Unwrap() error { return e.err }

func newGit(dir string, extraEnv ...string) *git {
	env := append(os.Environ(),
		"GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=autosel-bot",
		"GIT_AUTHOR_EMAIL=autosel-bot@localhost",
		"GIT_COMMITTER_NAME=autosel-bot",
		"GIT_COMMITTER_EMAIL=autosel-bot@localhost",
		"LC_ALL=C",
	)
	env = append(env, extraEnv...)
	return &git{dir: dir, env: env}
}

// with returns a copy running in dir with extra environment variables.
func (g *git) with(dir string, extraEnv ...string) *git {
	env := append(append([]string(nil), g.env...), extraEnv...)
	return &git{dir: dir, env: env}
}

// run executes git with args and returns stdout.
func (g *git) run(ctx context.Context, args ...string) (string, error) {
	return g.runInput(ctx, nil, args...)
}

// runInput executes git with args, feeding stdin, and returns stdout.
func (g *git) runInput(ctx context.Context, stdin []byte, args ...string) (string, error) {
	full := append([]string{"-c", "core.pager=cat", "-c", "color.ui=false", "-c", "advice.detachedHead=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return stdout.String(), fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		return stdout.String(), &gitError{args: args, err: err, stderr: stderr.String()}
	}
	return stdout.String(), nil
}

// ok runs a command whose exit status is the answer (e.g. merge-base
// --is-ancestor): true on status 0, false on status 1, error otherwise.
func (g *git) ok(ctx context.Context, args ...string) (bool, error) {
	_, err := g.run(ctx, args...)
	if err == nil {
		return true, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return false, nil
	}
	return false, err
}

// revParse resolves rev to a full commit id.
func (g *git) revParse(ctx context.Context, rev string) (string, error) {
	out, err := g.run(ctx, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("unknown revision %q in %s: %w", rev, g.dir, err)
	}
	return strings.TrimSpace(out), nil
}

// isAncestor reports whether commit a is reachable from b.
func (g *git) isAncestor(ctx context.Context, a, b string) (bool, error) {
	return g.ok(ctx, "merge-base", "--is-ancestor", a, b)
}

// subject returns the subject line of commit rev.
func (g *git) subject(ctx context.Context, rev string) (string, error) {
	out, err := g.run(ctx, "log", "-1", "--format=%s", rev, "--")
	return strings.TrimSpace(out), err
}

// findSubject returns the newest commit reachable from rev (and not from
// any of the excluded revisions) whose subject equals subject exactly, or ""
// when there is none. limit bounds the number of commits searched (0 = all).
func (g *git) findSubject(ctx context.Context, rev, subject string, limit int, exclude ...string) (string, error) {
	if strings.TrimSpace(subject) == "" {
		return "", nil
	}
	args := []string{"log", "--format=%H%x00%s", "--fixed-strings", "--grep=" + subject}
	if limit > 0 {
		args = append(args, fmt.Sprintf("--max-count=%d", limit))
	}
	args = append(args, rev)
	for _, x := range exclude {
		args = append(args, "^"+x)
	}
	args = append(args, "--")
	out, err := g.run(ctx, args...)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(out, "\n") {
		sha, subj, ok := strings.Cut(l, "\x00")
		if ok && strings.TrimSpace(subj) == strings.TrimSpace(subject) {
			return sha, nil
		}
	}
	return "", nil
}
