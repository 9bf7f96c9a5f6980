//go:build unix

package index

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps path read-only. The mapping stays valid when the file is
// replaced (stores are renamed over, never rewritten in place).
func mapFile(path string) (data []byte, unmap func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := fi.Size()
	if size == 0 {
		return nil, nil, fmt.Errorf("%s: empty", path)
	}
	if size != int64(int(size)) {
		return nil, nil, fmt.Errorf("%s: too large to map", path)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
