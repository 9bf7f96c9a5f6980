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

// Token returns an API token: the content of file when set, else the
// value of the environment variable env ("" when neither is set), with
// surrounding white space removed. what names the token in errors
// ("lava token").
func Token(env, file, what string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("%s file: %w", what, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	if env == "" {
		return "", nil
	}
	return strings.TrimSpace(os.Getenv(env)), nil
}
