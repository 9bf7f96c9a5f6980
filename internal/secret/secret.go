// Package secret reads the passwords and tokens of the configuration: a
// value given inline, or the content of a file (which wins).
package secret

import (
	"fmt"
	"os"
	"strings"
)

// Read returns value, or the content of file when file is set (trailing
// line breaks removed).
func Read(value, file string) (string, error) {
	if file == "" {
		return value, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("password file: %w", err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}
