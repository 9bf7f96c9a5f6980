// Package deliver writes the bot's replies to an outbox Maildir and, when
// sending is enabled, submits them over SMTP with retries, using the outbox
// plus the store as a durable queue and a send-once protocol (queue.go;
// SMTP in smtp.go, recipient and rate policy in policy.go, the settings of
// the configuration's watch section in options.go).
package deliver

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Outbox is a Maildir holding composed replies: new/ holds replies not yet
// sent (in dry-run mode, every reply stays there for a human to read), cur/
// holds sent replies with the Maildir "S" flag.
type Outbox struct {
	// Dir is the Maildir's root (it has tmp/, new/, cur/).
	Dir string
	// Sync fsyncs every reply and directory change (on by default). When
	// sending, the outbox is the durable queue and needs it; a dry-run
	// outbox may turn it off (a power loss could then lose a reply file,
	// a process crash cannot).
	Sync bool
}

// OpenOutbox creates the Maildir directories if needed.
func OpenOutbox(dir string) (*Outbox, error) {
	for _, sub := range []string{"tmp", "new", "cur"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, fmt.Errorf("outbox %s: %w", dir, err)
		}
	}
	return &Outbox{Dir: dir, Sync: true}, nil
}

// fileName is the Maildir file name of a reply: derived from its
// Message-ID, so writing the same reply twice (a series analysed again
// after a crash) replaces the file instead of adding a copy.
func fileName(messageID string) string {
	h := sha256.Sum256([]byte(messageID))
	return hex.EncodeToString(h[:12]) + ".autosel-bot"
}

// Write stores a reply in new/ (through tmp/ and a rename, fsynced) unless
// it is already in cur/ (sent). It returns the file's path.
func (o *Outbox) Write(messageID string, raw []byte) (string, error) {
	name := fileName(messageID)
	if sent := filepath.Join(o.Dir, "cur", name+":2,S"); exists(sent) {
		return sent, nil
	}
	tmp := filepath.Join(o.Dir, "tmp", name)
	dst := filepath.Join(o.Dir, "new", name)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return "", fmt.Errorf("outbox: %w", err)
	}
	if _, err := f.Write(raw); err != nil {
		f.Close()
		return "", fmt.Errorf("outbox %s: %w", tmp, err)
	}
	if o.Sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return "", fmt.Errorf("outbox %s: %w", tmp, err)
		}
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("outbox %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return "", fmt.Errorf("outbox: %w", err)
	}
	if o.Sync {
		syncDir(filepath.Join(o.Dir, "new"))
	}
	return dst, nil
}

// MarkSent moves a reply from new/ to cur/ with the Seen flag and returns
// its new path. A reply already in cur/ is left there.
func (o *Outbox) MarkSent(path string) (string, error) {
	if strings.HasSuffix(path, ":2,S") {
		return path, nil
	}
	dst := filepath.Join(o.Dir, "cur", filepath.Base(path)+":2,S")
	if err := os.Rename(path, dst); err != nil {
		if exists(dst) {
			return dst, nil
		}
		return "", fmt.Errorf("outbox: %w", err)
	}
	if o.Sync {
		syncDir(filepath.Join(o.Dir, "cur"))
	}
	return dst, nil
}

// List returns the paths of the replies in new/ (unsent).
func (o *Outbox) List() ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(o.Dir, "new"))
	if err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			out = append(out, filepath.Join(o.Dir, "new", e.Name()))
		}
	}
	return out, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// syncDir fsyncs a directory so a rename survives a power loss; errors are
// ignored (not every file system supports it).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
