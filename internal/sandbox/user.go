package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The kernel does not count processes against RLIMIT_NPROC for the root
// user (nor for anything holding CAP_SYS_RESOURCE or CAP_SYS_ADMIN), so
// when the bot runs as root, builds run as an unprivileged user
// (Options.BuildUser): bwrap, still root, sets up the mounts and
// namespaces, then setpriv switches to that user and clears the
// supplementary groups and every capability, unshare gives the build a
// user namespace of its own (its process budget), and only then does the
// build's first process start. The writable directories a build gets
// are handed to that user first (own); the bot takes a worktree back with
// Reclaim before it runs git there again.

// defaultBuildUser is the user builds run as when the bot is root and
// sandbox.build_user is unset.
const defaultBuildUser = "nobody"

// identity is a uid and gid, and the absolute paths of the tools that
// switch to it.
type identity struct {
	uid, gid         int
	setpriv, unshare string
}

// resolveBuildUser returns the identity builds run as when the bot runs as
// root (euid 0), nil otherwise. name is a user name, a uid, or uid:gid
// ("" = nobody); it must not be root.
func resolveBuildUser(name string, euid int) (*identity, error) {
	if euid != 0 {
		return nil, nil
	}
	if name == "" {
		name = defaultBuildUser
	}
	id, err := lookupIdentity(name)
	if err != nil {
		return nil, fmt.Errorf("sandbox: build user %q: %w", name, err)
	}
	if id.uid == 0 || id.gid == 0 {
		return nil, fmt.Errorf("sandbox: build user %q is root (uid %d, gid %d): builds must run unprivileged", name, id.uid, id.gid)
	}
	if id.setpriv, err = systemTool("setpriv"); err != nil {
		return nil, err
	}
	if id.unshare, err = systemTool("unshare"); err != nil {
		return nil, err
	}
	return id, nil
}

// systemTool is the absolute path of a util-linux tool under the
// sandbox's read-only system dirs. It runs with the capabilities to switch
// users, so it must not be found through a PATH entry a build could
// write.
func systemTool(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		return "", fmt.Errorf("sandbox: %s (util-linux) is needed to run builds as the build user: %w", name, err)
	}
	for _, d := range systemDirs {
		if strings.HasPrefix(p, d+"/") {
			return p, nil
		}
	}
	return "", fmt.Errorf("sandbox: %s is %s, outside %v", name, p, systemDirs)
}

func lookupIdentity(name string) (*identity, error) {
	if u, g, ok := strings.Cut(name, ":"); ok {
		uid, err1 := strconv.ParseUint(u, 10, 31)
		gid, err2 := strconv.ParseUint(g, 10, 31)
		if err1 != nil || err2 != nil {
			return nil, errors.New("want a user name, a uid or uid:gid")
		}
		return &identity{uid: int(uid), gid: int(gid)}, nil
	}
	if n, err := strconv.ParseUint(name, 10, 31); err == nil {
		if u, err := user.LookupId(name); err == nil {
			gid, err := strconv.Atoi(u.Gid)
			if err != nil {
				return nil, err
			}
			return &identity{uid: int(n), gid: gid}, nil
		}
		return &identity{uid: int(n), gid: int(n)}, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("uid %q gid %q", u.Uid, u.Gid)
	}
	return &identity{uid: uid, gid: gid}, nil
}

// dropPrefix is the command prefix, run inside bwrap (which keeps only
// CAP_SETUID, CAP_SETGID, CAP_SETPCAP and CAP_DAC_OVERRIDE for it), that
// becomes id and drops every capability. With userns, the build then
// gets a user namespace of its own mapping id to itself: the kernel counts
// RLIMIT_NPROC per user namespace first, so the limit (set after it by
// prlimit) is the build's own, not shared with every process of id on the
// machine (another build, QEMU).
func dropPrefix(id *identity, userns bool) []string {
	a := []string{id.setpriv,
		fmt.Sprintf("--reuid=%d", id.uid), fmt.Sprintf("--regid=%d", id.gid), "--clear-groups",
		"--inh-caps=-all", "--bounding-set=-all", "--"}
	if userns {
		a = append(a, id.unshare, "--user", "--map-current-user", "--")
	}
	return a
}

// chownTree gives every file under dir (symbolic links themselves, never
// their targets) to uid:gid where it is not theirs already, except the
// .git entry at the top: a worktree's .git stays the bot's (the sandbox
// binds it read-only). No build runs in dir meanwhile (the callers hold
// its lock), so nothing swaps entries under the walk; hard links to files
// outside dir cannot exist there (a build cannot link across its bind
// mounts, and fs.protected_hardlinks stops links to others' files).
func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if filepath.Dir(p) == dir && d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid && int(st.Gid) == gid {
			return nil
		}
		return os.Lchown(p, uid, gid)
	})
}

// own hands the writable directories of a build to id.
func own(id *identity, dirs []string) error {
	for _, d := range dirs {
		if err := chownTree(d, id.uid, id.gid); err != nil {
			return fmt.Errorf("sandbox: giving %s to the build user: %w", d, err)
		}
	}
	return nil
}

// Reclaim gives dir and everything under it back to the bot's own user
// after builds ran in it as the build user: git refuses to work in a
// worktree another user owns, and the bot must not trust what that user
// may change later. It does nothing when builds run as the bot's user.
func (s *Sandbox) Reclaim(dir string) error {
	id, err := s.buildUser()
	if err != nil || id == nil {
		return err
	}
	if err := chownTree(dir, os.Geteuid(), os.Getegid()); err != nil {
		return fmt.Errorf("sandbox: taking %s back from the build user: %w", dir, err)
	}
	return nil
}

// buildUser is the resolved Options.BuildUser (nil: builds run as the
// bot's own user).
func (s *Sandbox) buildUser() (*identity, error) {
	s.userOnce.Do(func() {
		s.user, s.userErr = resolveBuildUser(s.opts.BuildUser, s.euid)
	})
	return s.user, s.userErr
}
