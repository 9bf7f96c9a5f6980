package lava

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// artifacts makes files downloadable by the dispatcher for one job.
type artifacts interface {
	// Publish returns the URL of each file (by name) and a function that
	// withdraws them.
	Publish(ctx context.Context, files map[string]string) (map[string]string, func(), error)
}

// randomKey is an unguessable path element.
func randomKey() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// FileServer serves published files over HTTP under random per-job paths;
// a withdrawn path answers 404.
type FileServer struct {
	ln   net.Listener
	srv  *http.Server
	base *url.URL
	log  *slog.Logger

	mu    sync.Mutex
	files map[string]string // "/<key>/<name>" -> file
}

// StartFileServer listens on addr (host:port; port 0 picks one) and serves
// until Close. publicURL is the URL prefix the dispatchers use to reach it
// (empty: http://<the listener's address>/).
func StartFileServer(addr, publicURL string, log *slog.Logger) (*FileServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("lava: artifact server: %w", err)
	}
	if publicURL == "" {
		publicURL = "http://" + ln.Addr().String() + "/"
	}
	u, err := url.Parse(publicURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		ln.Close()
		return nil, fmt.Errorf("lava: bad artifact URL %q", publicURL)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &FileServer{ln: ln, base: u, log: log, files: map[string]string{}}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Addr is the listener's address.
func (s *FileServer) Addr() string { return s.ln.Addr().String() }

// Close stops the server.
func (s *FileServer) Close() error { return s.srv.Close() }

// ServeHTTP implements http.Handler: GET and HEAD of published files.
func (s *FileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	s.mu.Lock()
	file, ok := s.files[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	f, err := os.Open(file)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		http.Error(w, "stat failed", http.StatusInternalServerError)
		return
	}
	s.log.Debug("lava: serving artifact", "path", r.URL.Path, "from", r.RemoteAddr)
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", st.ModTime(), f)
}

// Publish implements artifacts.
func (s *FileServer) Publish(_ context.Context, files map[string]string) (map[string]string, func(), error) {
	key, err := randomKey()
	if err != nil {
		return nil, nil, err
	}
	urls := map[string]string{}
	var paths []string
	s.mu.Lock()
	for name, file := range files {
		p := "/" + key + "/" + name
		s.files[p] = file
		paths = append(paths, p)
		urls[name] = s.base.JoinPath(key, name).String()
	}
	s.mu.Unlock()
	return urls, func() {
		s.mu.Lock()
		for _, p := range paths {
			delete(s.files, p)
		}
		s.mu.Unlock()
	}, nil
}

// sharedDir publishes files by copying them into a directory that another
// web server exports under a URL prefix.
type sharedDir struct {
	dir    string
	prefix string
}

// Publish implements artifacts.
func (d *sharedDir) Publish(_ context.Context, files map[string]string) (map[string]string, func(), error) {
	key, err := randomKey()
	if err != nil {
		return nil, nil, err
	}
	dst := filepath.Join(d.dir, key)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, nil, fmt.Errorf("lava: share dir: %w", err)
	}
	remove := func() { os.RemoveAll(dst) }
	urls := map[string]string{}
	for name, file := range files {
		if strings.ContainsAny(name, "/\\") {
			remove()
			return nil, nil, errors.New("lava: artifact name with a slash")
		}
		if err := copyFile(file, filepath.Join(dst, name)); err != nil {
			remove()
			return nil, nil, fmt.Errorf("lava: share dir: %w", err)
		}
		urls[name] = strings.TrimSuffix(d.prefix, "/") + "/" + path.Join(key, name)
	}
	return urls, remove, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
