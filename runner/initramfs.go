package runner

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/cavaliergopher/cpio"
)

// initramfsFile is one file of the guest's initramfs.
type initramfsFile struct {
	// Name is the path inside the image, without a leading slash.
	Name string
	// Mode holds the permission bits.
	Mode os.FileMode
	// Data is the content.
	Data []byte
	// Link makes the file a symlink to Link (Data and Mode unused).
	Link string
}

// writeInitramfs builds an uncompressed newc cpio archive holding the
// given files and every parent directory they need (plus the mount points
// init uses). No root privileges or device nodes are needed: init mounts
// devtmpfs itself.
func writeInitramfs(files []initramfsFile) ([]byte, error) {
	var buf bytes.Buffer
	w := cpio.NewWriter(&buf)
	mtime := time.Unix(0, 0)
	inode := int64(1)
	dirs := map[string]bool{}
	addDir := func(d string) error {
		if d == "." || d == "" || dirs[d] {
			return nil
		}
		dirs[d] = true
		inode++
		return w.WriteHeader(&cpio.Header{Name: d, Mode: cpio.TypeDir | 0o755, Links: 2, Inode: inode, ModTime: mtime})
	}
	var parents func(string) error
	parents = func(p string) error {
		d := path.Dir(p)
		if d == "." || d == "/" {
			return nil
		}
		if err := parents(d); err != nil {
			return err
		}
		return addDir(d)
	}
	for _, d := range []string{"dev", "proc", "sys", "tmp", "autosel"} {
		if err := addDir(d); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		name := strings.TrimPrefix(path.Clean("/"+f.Name), "/")
		if name == "" {
			return nil, fmt.Errorf("runner: initramfs: empty file name")
		}
		if err := parents(name); err != nil {
			return nil, err
		}
		inode++
		if f.Link != "" {
			hdr := &cpio.Header{Name: name, Mode: cpio.TypeSymlink | 0o777, Size: int64(len(f.Link)), Links: 1, Inode: inode, ModTime: mtime}
			if err := w.WriteHeader(hdr); err != nil {
				return nil, fmt.Errorf("runner: initramfs %s: %w", name, err)
			}
			if _, err := w.Write([]byte(f.Link)); err != nil {
				return nil, fmt.Errorf("runner: initramfs %s: %w", name, err)
			}
			continue
		}
		hdr := &cpio.Header{
			Name:    name,
			Mode:    cpio.TypeReg | cpio.FileMode(f.Mode.Perm()),
			Size:    int64(len(f.Data)),
			Links:   1,
			Inode:   inode,
			ModTime: mtime,
		}
		if err := w.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("runner: initramfs %s: %w", name, err)
		}
		if _, err := w.Write(f.Data); err != nil {
			return nil, fmt.Errorf("runner: initramfs %s: %w", name, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("runner: initramfs: %w", err)
	}
	return buf.Bytes(), nil
}
