//go:build !unix

package index

import "os"

// mapFile reads path into memory where mmap is unavailable.
func mapFile(path string) (data []byte, unmap func() error, err error) {
	b, err := os.ReadFile(path)
	return b, nil, err
}
