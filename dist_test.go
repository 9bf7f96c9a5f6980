package autoselbot

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// serviceUnit is the systemd unit shipped for `watch`.
const serviceUnit = "dist/autosel-bot.service"

// TestServiceUnitVerifies runs systemd-analyze verify on the shipped unit
// (ExecStart pointed at an executable that exists here, the test binary,
// as verify requires): a warning about the unit (an unknown key, a bad
// value) fails the test, not only an error.
func TestServiceUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed (.ci/packages.txt: systemd)")
	}
	data, err := os.ReadFile(serviceUnit)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const bin = "ExecStart=/usr/local/bin/autosel-bot "
	if !bytes.Contains(data, []byte("\n"+bin)) {
		t.Fatalf("%s: no %q line", serviceUnit, bin)
	}
	unit := filepath.Join(t.TempDir(), "autosel-bot.service")
	if err := os.WriteFile(unit, bytes.Replace(data, []byte(bin), []byte("ExecStart="+self+" "), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", unit).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte(unit)) || bytes.Contains(out, []byte("autosel-bot.service")) {
		t.Errorf("systemd-analyze verify %s: %v\n%s", serviceUnit, err, out)
	}
}

// TestServiceUnitSandbox: the unit runs `watch` as a user of its own with
// its state and cache directories, and sandboxed.
func TestServiceUnitSandbox(t *testing.T) {
	f, err := os.Open(serviceUnit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			got[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ExecStart":               "/usr/local/bin/autosel-bot watch",
		"DynamicUser":             "yes",
		"StateDirectory":          "autosel-bot",
		"CacheDirectory":          "autosel-bot",
		"ConfigurationDirectory":  "autosel-bot",
		"ProtectSystem":           "strict",
		"ProtectHome":             "yes",
		"PrivateTmp":              "yes",
		"PrivateDevices":          "yes",
		"NoNewPrivileges":         "yes",
		"CapabilityBoundingSet":   "",
		"RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6",
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s: %s=%q, want %q", serviceUnit, k, g, v)
		}
	}
	if env := got["Environment"]; !strings.Contains(env, "XDG_STATE_HOME=%S") || !strings.Contains(env, "XDG_CACHE_HOME=%C") {
		t.Errorf("%s: Environment=%q does not put the state and cache under the unit's directories", serviceUnit, env)
	}
}
