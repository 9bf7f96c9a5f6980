package runner

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBuildFilesNoSymlinkEscape: symlinks a (hostile) build left in its
// build dir neither leak a host file to the bot nor let it overwrite one.
func TestBuildFilesNoSymlinkEscape(t *testing.T) {
	build, host := t.TempDir(), t.TempDir()
	secret := filepath.Join(host, "shadow")
	os.WriteFile(secret, []byte("root:$6$secret\n"), 0o600)
	os.MkdirAll(filepath.Join(build, "arch/x86/boot"), 0o755)
	os.Symlink(secret, filepath.Join(build, "arch/x86/boot/bzImage"))
	os.Symlink(host, filepath.Join(build, "linkdir"))
	os.Symlink(secret, filepath.Join(build, ".autosel-steps"))
	os.WriteFile(filepath.Join(build, "inside"), []byte("ok"), 0o644)
	os.Symlink("inside", filepath.Join(build, "link-inside"))

	if b, err := readBuildFile(build, "arch/x86/boot/bzImage"); err == nil {
		t.Errorf("read a host file through a symlink: %q", b)
	}
	if b, err := readBuildFile(build, "linkdir/shadow"); err == nil {
		t.Errorf("read a host file through a symlinked dir: %q", b)
	}
	if b, err := readBuildFile(build, "link-inside"); err != nil || string(b) != "ok" {
		t.Errorf("symlink inside the build dir: %q %v", b, err)
	}
	if err := writeBuildFile(build, ".autosel-steps", []byte("1234")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "root:$6$secret\n" {
		t.Fatalf("host file overwritten: %q", b)
	}
	if b, err := readBuildFile(build, ".autosel-steps"); err != nil || string(b) != "1234" {
		t.Fatalf("build file not replaced: %q %v", b, err)
	}
	if err := writeBuildFile(build, "linkdir/x", []byte("x")); err == nil {
		t.Error("wrote through a symlinked dir")
	}
	if _, err := os.Stat(filepath.Join(host, "x")); err == nil {
		t.Error("file created outside the build dir")
	}
}
