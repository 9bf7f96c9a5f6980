package testkernel

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadyFor(t *testing.T) {
	dir := t.TempDir()
	const stamp = "/usr/src/linux-source-6.1.tar.xz 1 2\n"
	if readyFor(dir, "") {
		t.Fatal("an empty directory is ready")
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git", "refs", "tags"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "refs", "tags", "base"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !readyFor(dir, "") {
		t.Error("a tagged tree is not ready when there is no tarball to compare with")
	}
	if readyFor(dir, stamp) {
		t.Error("a tree without a stamp is ready for a tarball")
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", stampFile), []byte("/usr/src/linux-source-6.1.tar.xz 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if readyFor(dir, stamp) {
		t.Error("a tree from another tarball is ready")
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", stampFile), []byte(stamp), 0o644); err != nil {
		t.Fatal(err)
	}
	if !readyFor(dir, stamp) {
		t.Error("a tree from the installed tarball is not ready")
	}
}
