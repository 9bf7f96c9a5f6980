package sandbox

import (
	"sort"
	"strings"
)

// allowedNames are the variables a build may see besides CCACHE_* and
// KBUILD_*: the toolchain's and kbuild's own knobs and the AUTOSEL_* build
// variables the stable stage documents. Anything else (the bot's
// AUTOSEL_BOT_* configuration, SMTP/IMAP secrets, SSH agents, tokens) is
// dropped.
var allowedNames = map[string]bool{
	"PATH": true, "LANG": true, "LC_ALL": true, "LC_CTYPE": true, "LC_MESSAGES": true,
	"TZ": true, "SOURCE_DATE_EPOCH": true,
	"ARCH": true, "SUBARCH": true, "CROSS_COMPILE": true, "LLVM": true, "LLVM_IAS": true,
	"KCONFIG_CONFIG": true, "LOCALVERSION": true,
	"AUTOSEL_TREE": true, "AUTOSEL_SRC": true, "AUTOSEL_BUILD_DIR": true,
}

// allowedPrefixes are allowed name prefixes.
var allowedPrefixes = []string{"CCACHE_", "KBUILD_"}

// neverPrefixes are refused even when listed in Options.PassEnv: the
// bot's own configuration (which holds its passwords).
var neverPrefixes = []string{"AUTOSEL_BOT_"}

// Allowed reports whether a build may see the variable name (extra are
// operator-listed names, Options.PassEnv).
func Allowed(name string, extra []string) bool {
	for _, p := range neverPrefixes {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	if allowedNames[name] {
		return true
	}
	for _, p := range allowedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, e := range extra {
		if e == name {
			return true
		}
	}
	return false
}

// buildEnv assembles a build's environment: PATH, LANG and the PassEnv
// names from the host (lookup), then the caller's explicit variables, then
// HOME; every name must pass Allowed. Later settings win. It returns the
// environment and the names it dropped.
func buildEnv(lookup func(string) (string, bool), passEnv, explicit []string, home string) (env, dropped []string) {
	vals := map[string]string{}
	for _, n := range append([]string{"PATH", "LANG"}, passEnv...) {
		if v, ok := lookup(n); ok && Allowed(n, passEnv) {
			vals[n] = v
		}
	}
	if _, ok := vals["PATH"]; !ok {
		vals["PATH"] = "/usr/local/bin:/usr/bin:/bin"
	}
	for _, kv := range explicit {
		n, v, ok := strings.Cut(kv, "=")
		if !ok || n == "" {
			continue
		}
		if !Allowed(n, passEnv) {
			dropped = append(dropped, n)
			continue
		}
		vals[n] = v
	}
	if home != "" {
		vals["HOME"] = home
	}
	for n, v := range vals {
		env = append(env, n+"="+v)
	}
	sort.Strings(env)
	return env, dropped
}
