package daemon

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// Real servers for the integration tests: dovecot (IMAP + LMTP), postfix
// (SMTP -> LMTP), public-inbox-imapd. Each runs on 127.0.0.1 on a free
// port with its state in a temp dir, and is stopped in t.Cleanup. Missing
// tools skip the test, or fail it when CI=true.

// need checks that the tools exist.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required (CI=true): %v", tool, err)
			}
			t.Skipf("%s not installed", tool)
		}
	}
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("the mail server tests run dovecot/postfix as root")
		}
		t.Skip("not root: cannot run dovecot/postfix")
	}
}

// freePort returns a free TCP port on 127.0.0.1.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// openDir makes a temp dir the mail daemons' users can traverse.
func openDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	return dir
}

func chownTo(t *testing.T, path, name string) {
	t.Helper()
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(path, uid, gid); err != nil {
		t.Fatal(err)
	}
}

// waitPort waits until addr accepts connections.
func waitPort(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s does not answer", addr)
}

// dovecot is a private dovecot instance.
type dovecot struct {
	t        *testing.T
	dir      string
	IMAPAddr string
	LMTPAddr string
	// IMAPSAddr is the implicit-TLS listener (startDovecotTLS only).
	IMAPSAddr string
	cmd       *exec.Cmd
}

// startDovecot starts dovecot with users "list" and "bot" (password
// "secret"), maildirs under its temp dir.
func startDovecot(t *testing.T) *dovecot { return startDovecotOpts(t, false) }

// startDovecotTLS also offers STARTTLS on IMAPAddr and implicit TLS on
// IMAPSAddr, with a self-signed certificate for 127.0.0.1.
func startDovecotTLS(t *testing.T) *dovecot { return startDovecotOpts(t, true) }

func startDovecotOpts(t *testing.T, withTLS bool) *dovecot {
	need(t, "dovecot")
	dir := openDir(t)
	d := &dovecot{t: t, dir: dir,
		IMAPAddr: fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		LMTPAddr: fmt.Sprintf("127.0.0.1:%d", freePort(t)),
	}
	for _, sub := range []string{"run", "state", "mail"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
	}
	chownTo(t, filepath.Join(dir, "mail"), "dovecot")
	os.WriteFile(filepath.Join(dir, "passwd"), []byte("list:{PLAIN}secret::::::\nbot:{PLAIN}secret::::::\n"), 0o644)
	_, iport, _ := net.SplitHostPort(d.IMAPAddr)
	_, lport, _ := net.SplitHostPort(d.LMTPAddr)
	conf := fmt.Sprintf(`base_dir = %[1]s/run
state_dir = %[1]s/state
log_path = %[1]s/dovecot.log
protocols = imap lmtp
listen = 127.0.0.1
default_login_user = dovenull
default_internal_user = dovecot
first_valid_uid = 1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:%[1]s/mail/%%n
# A test server's mail need not survive a power cut: no fsync per append
# (an fsync per message made appending the watch tests' 800 messages
# take most of their time).
mail_fsync = never
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%%n %[1]s/passwd
}
userdb {
  driver = static
  args = uid=dovecot gid=dovecot home=%[1]s/mail/%%n
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = %[2]s
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = %[3]s
  }
}
`, dir, iport, lport)
	if withTLS {
		d.IMAPSAddr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
		_, sport, _ := net.SplitHostPort(d.IMAPSAddr)
		cert, key := selfSigned(t, dir)
		conf = strings.Replace(conf, "ssl = no\n", fmt.Sprintf("ssl = yes\nssl_cert = <%s\nssl_key = <%s\n", cert, key), 1)
		conf = strings.Replace(conf, "    port = "+iport+"\n  }\n", fmt.Sprintf("    port = %s\n  }\n  inet_listener imaps {\n    address = 127.0.0.1\n    port = %s\n    ssl = yes\n  }\n", iport, sport), 1)
	}
	os.WriteFile(filepath.Join(dir, "dovecot.conf"), []byte(conf), 0o644)
	d.Start()
	t.Cleanup(d.Stop)
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(dir, "dovecot.log")); err == nil {
				t.Logf("dovecot log:\n%s", b)
			}
		}
	})
	return d
}

// Start starts (or restarts) the server.
func (d *dovecot) Start() {
	d.t.Helper()
	d.cmd = exec.Command("dovecot", "-F", "-c", filepath.Join(d.dir, "dovecot.conf"))
	// A file, not a pipe: dovecot's children keep their stdout open for a
	// while after the master exits, and Wait would wait for them.
	out, err := os.OpenFile(filepath.Join(d.dir, "dovecot.out"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		d.t.Fatal(err)
	}
	defer out.Close()
	d.cmd.Stdout, d.cmd.Stderr = out, out
	if err := d.cmd.Start(); err != nil {
		d.t.Fatalf("dovecot: %v", err)
	}
	waitPort(d.t, d.IMAPAddr)
	waitPort(d.t, d.LMTPAddr)
	if d.IMAPSAddr != "" {
		waitPort(d.t, d.IMAPSAddr)
	}
}

// Stop stops the server (its mail stays).
func (d *dovecot) Stop() {
	if d.cmd == nil || d.cmd.Process == nil {
		return
	}
	children := childPIDs(d.cmd.Process.Pid)
	d.cmd.Process.Signal(syscall.SIGTERM)
	// dovecot's imap processes linger for many seconds after the master
	// exits; end them too, as a crashed or restarted server would.
	defer func() {
		for _, pid := range children {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	done := make(chan struct{})
	go func() { d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		d.cmd.Process.Kill()
		<-done
	}
	d.cmd = nil
	// dovecot's children may linger a moment after the master exits.
	for i := 0; i < 100; i++ {
		c, err := net.DialTimeout("tcp", d.IMAPAddr, 100*time.Millisecond)
		if err != nil {
			return
		}
		c.Close()
		time.Sleep(50 * time.Millisecond)
	}
}

// client logs in as user.
func (d *dovecot) client(user string) *imapclient.Client {
	d.t.Helper()
	return imapLogin(d.t, d.IMAPAddr, user, "secret")
}

func imapLogin(t *testing.T, addr, user, pass string) *imapclient.Client {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		t.Fatalf("imap dial %s: %v", addr, err)
	}
	if err := c.Login(user, pass).Wait(); err != nil {
		t.Fatalf("imap login: %v", err)
	}
	return c
}

// Append appends raw messages to user's mailbox.
func (d *dovecot) Append(user, mailbox string, raws ...[]byte) {
	d.t.Helper()
	c := d.client(user)
	defer c.Close()
	if mailbox != "INBOX" {
		c.Create(mailbox, nil).Wait()
	}
	for _, raw := range raws {
		raw = bytes.ReplaceAll(bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
		cmd := c.Append(mailbox, int64(len(raw)), nil)
		if _, err := cmd.Write(raw); err != nil {
			d.t.Fatalf("append: %v", err)
		}
		if err := cmd.Close(); err != nil {
			d.t.Fatalf("append: %v", err)
		}
		if _, err := cmd.Wait(); err != nil {
			d.t.Fatalf("append: %v", err)
		}
	}
}

// Fetch returns every message of user's mailbox.
func (d *dovecot) Fetch(user, mailbox string) [][]byte {
	d.t.Helper()
	return fetchAll(d.t, d.client(user), mailbox)
}

func fetchAll(t *testing.T, c *imapclient.Client, mailbox string) [][]byte {
	t.Helper()
	defer c.Close()
	sel, err := c.Select(mailbox, &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		t.Fatalf("select %s: %v", mailbox, err)
	}
	if sel.NumMessages == 0 {
		return nil
	}
	var seq imap.SeqSet
	seq.AddRange(1, sel.NumMessages)
	sec := &imap.FetchItemBodySection{Peek: true}
	bufs, err := c.Fetch(seq, &imap.FetchOptions{BodySection: []*imap.FetchItemBodySection{sec}}).Collect()
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	var out [][]byte
	for _, b := range bufs {
		out = append(out, b.FindBodySection(sec))
	}
	return out
}

// startPostfix starts postfix on a free loopback port; every recipient is
// rewritten to rcpt and delivered over LMTP to lmtpAddr. It returns the
// SMTP address.
func startPostfix(t *testing.T, lmtpAddr, rcpt string) string {
	need(t, "postfix")
	dir := openDir(t)
	for _, sub := range []string{"conf", "spool", "data"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
	}
	chownTo(t, filepath.Join(dir, "data"), "postfix")
	port := freePort(t)
	main := fmt.Sprintf(`compatibility_level = 3.6
queue_directory = %[1]s/spool
data_directory = %[1]s/data
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = localhost
mydomain = localdomain
mydestination =
relayhost =
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = permit_mynetworks, reject
virtual_alias_maps = static:%[2]s
virtual_alias_domains =
transport_maps = static:lmtp:inet:%[3]s
local_recipient_maps =
maillog_file_prefixes = %[1]s
maillog_file = %[1]s/maillog
smtputf8_enable = no
biff = no
alias_maps =
alias_database =
`, dir, rcpt, lmtpAddr)
	master := fmt.Sprintf("127.0.0.1:%d inet n - n - - smtpd\n", port) + `pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       1       1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
local     unix  -       n       n       -       -       local
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
`
	conf := filepath.Join(dir, "conf")
	os.WriteFile(filepath.Join(conf, "main.cf"), []byte(main), 0o644)
	os.WriteFile(filepath.Join(conf, "master.cf"), []byte(master), 0o644)
	if out, err := exec.Command("postfix", "-c", conf, "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "maillog"))
		t.Fatalf("postfix start: %v\n%s\n%s", err, out, log)
	}
	t.Cleanup(func() {
		exec.Command("postfix", "-c", conf, "stop").Run()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "maillog"))
			t.Logf("postfix log:\n%s", log)
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitPort(t, addr)
	return addr
}

// childPIDs lists the direct children of pid (from /proc).
func childPIDs(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 {
			if pp, _ := strconv.Atoi(f[1]); pp == pid {
				out = append(out, n)
			}
		}
	}
	return out
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T, dir string) (certPath, keyPath string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return certPath, keyPath
}
