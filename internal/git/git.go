// Package git runs git for the rest of the bot: every command gets the
// caller's context (cancellation kills git), a fixed environment that makes
// its output independent of the user's and the system's configuration
// (no pager, no colour, no prompts, C locale, a fixed identity for the
// commits it may create), and errors that carry the command and git's
// stderr (Error). Helpers cover what the bot does with git: resolve
// revisions, keep worktrees (worktree.go), apply and diff patches, blame
// lines (blame.go).
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Git runs git commands in one directory. The zero value is not usable;
// New makes one. A Git is immutable: With* return modified copies, so one
// value can be shared by goroutines.
type Git struct {
	dir    string
	env    []string // added to the base environment
	config []string // "-c key=value" settings, in order
}

// baseEnv is added to the process environment of every command.
var baseEnv = []string{
	"GIT_TERMINAL_PROMPT=0",
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_PAGER=cat",
	"GIT_AUTHOR_NAME=autosel-bot",
	"GIT_AUTHOR_EMAIL=autosel-bot@localhost",
	"GIT_COMMITTER_NAME=autosel-bot",
	"GIT_COMMITTER_EMAIL=autosel-bot@localhost",
	"LC_ALL=C",
}

// baseConfig is passed with -c to every command.
var baseConfig = []string{"core.pager=cat", "color.ui=false", "advice.detachedHead=false"}

// New returns a Git running in dir (a work tree, a bare repository, or any
// directory for commands that need no repository).
func New(dir string) *Git {
	return &Git{dir: dir}
}

// Dir returns the directory commands run in.
func (g *Git) Dir() string { return g.dir }

// WithDir returns a copy running in dir, with the same environment and
// configuration.
func (g *Git) WithDir(dir string) *Git {
	c := *g
	c.dir = dir
	return &c
}

// WithEnv returns a copy whose commands also get env ("KEY=value").
func (g *Git) WithEnv(env ...string) *Git {
	c := *g
	c.env = append(append([]string(nil), g.env...), env...)
	return &c
}

// WithConfig returns a copy whose commands also get the configuration
// settings kv ("key=value", as for git -c).
func (g *Git) WithConfig(kv ...string) *Git {
	c := *g
	c.config = append(append([]string(nil), g.config...), kv...)
	return &c
}

// Run runs git with args and returns its stdout.
func (g *Git) Run(ctx context.Context, args ...string) (string, error) {
	out, err := g.Output(ctx, nil, args...)
	return string(out), err
}

// RunInput runs git with args, feeding stdin, and returns its stdout.
func (g *Git) RunInput(ctx context.Context, stdin []byte, args ...string) (string, error) {
	out, err := g.Output(ctx, stdin, args...)
	return string(out), err
}

// Output runs git with args, feeding stdin (nil: none), and returns its
// stdout as bytes (for NUL-separated and binary output). On failure the
// stdout read so far is returned with an *Error, or with the context's
// error when the context ended.
func (g *Git) Output(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd := g.Command(ctx, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return stdout.Bytes(), fmt.Errorf("git %s: %w", first(args), ctx.Err())
		}
		return stdout.Bytes(), &Error{Args: args, Dir: g.dir, Err: err, Stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}

// Command returns git with args as an *exec.Cmd with g's directory,
// environment and configuration, for a caller that streams (git cat-file
// --batch): the caller connects its input and output and runs it.
func (g *Git) Command(ctx context.Context, args ...string) *exec.Cmd {
	full := make([]string, 0, 2*(len(baseConfig)+len(g.config))+len(args))
	for _, kv := range baseConfig {
		full = append(full, "-c", kv)
	}
	for _, kv := range g.config {
		full = append(full, "-c", kv)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = g.dir
	cmd.Env = append(append(os.Environ(), baseEnv...), g.env...)
	return cmd
}

// OK runs a command whose exit status is the answer (merge-base
// --is-ancestor, diff --quiet): true on status 0, false on status 1, an
// error otherwise.
func (g *Git) OK(ctx context.Context, args ...string) (bool, error) {
	_, err := g.Output(ctx, nil, args...)
	if err == nil {
		return true, nil
	}
	var e *Error
	if errors.As(err, &e) && e.ExitCode() == 1 {
		return false, nil
	}
	return false, err
}

// RevParse resolves rev to the full id of the commit it names.
func (g *Git) RevParse(ctx context.Context, rev string) (string, error) {
	out, err := g.Run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("unknown revision %q in %s: %w", rev, g.dir, err)
	}
	return strings.TrimSpace(out), nil
}

// IsAncestor reports whether commit a is reachable from commit b.
func (g *Git) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	return g.OK(ctx, "merge-base", "--is-ancestor", "--end-of-options", a, b)
}

// Diff returns `git diff --binary` from commit from to commit to (binary
// patches included, so git apply reproduces the change exactly).
func (g *Git) Diff(ctx context.Context, from, to string) ([]byte, error) {
	return g.Output(ctx, nil, "diff", "--binary", "--end-of-options", from, to)
}

// Apply runs git apply with flags on diff (fed on stdin): flags such as
// --cached, --3way, --check choose where it applies.
func (g *Git) Apply(ctx context.Context, diff []byte, flags ...string) error {
	args := append(append([]string{"apply"}, flags...), "-")
	_, err := g.Output(ctx, diff, args...)
	return err
}

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
