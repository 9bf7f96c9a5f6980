package patchguard

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/git"
)

// gitCmd runs git in dir with extra environment; stdin may be nil.
func gitCmd(ctx context.Context, dir string, env []string, stdin []byte, args ...string) ([]byte, error) {
	return git.New(dir).WithEnv(env...).Output(ctx, stdin, args...)
}

// change is one index entry that differs from the base commit.
type change struct {
	oldMode, newMode string // "000000" when absent
	oldSHA, newSHA   string
	status           byte // A, M, D, T
	path             string
}

// scratch is a throwaway index and object directory over a repository:
// patches are applied with git's own code without touching the repository
// (new objects go to the scratch object directory).
type scratch struct {
	repo string
	dir  string
	env  []string
	base map[string]baseEntry // partial index: the entries it started with
}

// newScratch makes a scratch index of repo holding commit.
func newScratch(ctx context.Context, repo, commit string) (*scratch, error) {
	common, err := gitCmd(ctx, repo, nil, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "autosel-guard-")
	if err != nil {
		return nil, err
	}
	s := &scratch{repo: repo, dir: dir, env: []string{
		"GIT_INDEX_FILE=" + filepath.Join(dir, "index"),
		"GIT_OBJECT_DIRECTORY=" + filepath.Join(dir, "objects"),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(strings.TrimSpace(string(common)), "objects"),
	}}
	if err := os.MkdirAll(filepath.Join(dir, "objects"), 0o755); err != nil {
		s.close()
		return nil, err
	}
	if _, err := s.git(ctx, nil, "read-tree", commit); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *scratch) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return gitCmd(ctx, s.repo, s.env, stdin, args...)
}

func (s *scratch) close() { os.RemoveAll(s.dir) }

// apply applies diff to the scratch index as `git apply` would.
func (s *scratch) apply(ctx context.Context, diff []byte) error {
	_, err := s.git(ctx, diff, "apply", "--cached", "--whitespace=nowarn", "-")
	return err
}

// changes lists the index entries that differ from base.
func (s *scratch) changes(ctx context.Context, base string) ([]change, error) {
	if s.base != nil {
		return s.partialChanges(ctx, base)
	}
	out, err := s.git(ctx, nil, "diff-index", "--cached", "--raw", "-z", "--no-renames", "--full-index", base)
	if err != nil {
		return nil, err
	}
	return parseRaw(out)
}

// parseRaw parses `git diff-index --raw -z` output.
func parseRaw(out []byte) ([]change, error) {
	var cs []change
	f := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(f[i]), ":"))
		if len(meta) != 5 || meta[4] == "" {
			return nil, fmt.Errorf("git diff-index: unexpected record %q", f[i])
		}
		cs = append(cs, change{oldMode: meta[0], newMode: meta[1], oldSHA: meta[2], newSHA: meta[3],
			status: meta[4][0], path: string(f[i+1])})
	}
	return cs, nil
}

// numstat runs `git apply --numstat -z` on diff (outside any repository)
// and returns every path git would write (post-image names, unquoted by
// git) and the paths of binary patches.
func numstat(ctx context.Context, diff []byte) (names, binary []string, err error) {
	dir, err := os.MkdirTemp("", "autosel-guard-numstat-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	out, err := gitCmd(ctx, dir, []string{"GIT_DIR=" + filepath.Join(dir, "none"), "GIT_CEILING_DIRECTORIES=" + dir}, diff, "apply", "--numstat", "-z", "-")
	if err != nil {
		return nil, nil, err
	}
	// Records: "A\tD\tpath\0", or for renames and copies "A\tD\t\0old\0new\0".
	f := bytes.Split(out, []byte{0})
	for i := 0; i < len(f); i++ {
		rec := string(f[i])
		if rec == "" {
			continue
		}
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			return nil, nil, fmt.Errorf("git apply --numstat: unexpected record %q", rec)
		}
		name := parts[2]
		if name == "" && i+2 < len(f) {
			names = append(names, string(f[i+1]))
			name = string(f[i+2])
			i += 2
		}
		names = append(names, name)
		if parts[0] == "-" || parts[1] == "-" {
			binary = append(binary, name)
		}
	}
	return names, binary, nil
}

// catFile reads blobs (by object name) with one git cat-file --batch.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func newCatFile(ctx context.Context, repo string, env []string) (*catFile, error) {
	cmd := git.New(repo).WithEnv(env...).Command(ctx, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

// read returns the object's content; ok is false when it is missing.
func (c *catFile) read(name string) (data []byte, ok bool, err error) {
	if strings.ContainsAny(name, "\n") {
		return nil, false, nil
	}
	if _, err := io.WriteString(c.in, name+"\n"); err != nil {
		return nil, false, err
	}
	hdr, err := c.out.ReadString('\n')
	if err != nil {
		return nil, false, err
	}
	f := strings.Fields(hdr)
	if len(f) == 2 && f[1] == "missing" || len(f) != 3 {
		return nil, false, nil
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, false, fmt.Errorf("git cat-file: bad header %q", hdr)
	}
	data = make([]byte, n+1)
	if _, err := io.ReadFull(c.out, data); err != nil {
		return nil, false, err
	}
	return data[:n], f[1] == "blob", nil
}

func (c *catFile) close() {
	c.in.Close()
	c.cmd.Wait()
}
