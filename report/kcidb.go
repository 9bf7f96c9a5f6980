package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// KCIDB I/O (the Linux kernel CI reporting format, schema v4) for the VM
// result: one checkout per kernel (the baseline commit alone, and the same
// commit with the patchset), one build of each, and one test per suite
// test and kernel, plus one per metric. KCIDB submitters (kcidb-submit)
// and dashboards read it.

// KCIDBMajor and KCIDBMinor are the schema version written.
const (
	KCIDBMajor = 4
	KCIDBMinor = 3
)

// KCIDBData is one KCIDB I/O document.
type KCIDBData struct {
	Version   KCIDBVersion    `json:"version"`
	Checkouts []KCIDBCheckout `json:"checkouts"`
	Builds    []KCIDBBuild    `json:"builds"`
	Tests     []KCIDBTest     `json:"tests"`
}

// KCIDBVersion is the schema version of a document.
type KCIDBVersion struct {
	Major int `json:"major"`
	Minor int `json:"minor"`
}

// KCIDBResource is a named remote file.
type KCIDBResource struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// KCIDBCheckout is the source code that was built: a commit and the
// patches applied on top.
type KCIDBCheckout struct {
	ID            string          `json:"id"`
	Origin        string          `json:"origin"`
	TreeName      string          `json:"tree_name,omitempty"`
	GitCommitHash string          `json:"git_commit_hash,omitempty"`
	GitCommitName string          `json:"git_commit_name,omitempty"`
	PatchsetFiles []KCIDBResource `json:"patchset_files,omitempty"`
	PatchsetHash  string          `json:"patchset_hash"`
	MessageID     string          `json:"message_id,omitempty"`
	Comment       string          `json:"comment,omitempty"`
	StartTime     string          `json:"start_time,omitempty"`
	LogExcerpt    string          `json:"log_excerpt,omitempty"`
	Valid         bool            `json:"valid"`
	Misc          map[string]any  `json:"misc,omitempty"`
}

// KCIDBBuild is one kernel build of a checkout.
type KCIDBBuild struct {
	ID           string         `json:"id"`
	CheckoutID   string         `json:"checkout_id"`
	Origin       string         `json:"origin"`
	Comment      string         `json:"comment,omitempty"`
	StartTime    string         `json:"start_time,omitempty"`
	Duration     float64        `json:"duration,omitempty"`
	Architecture string         `json:"architecture,omitempty"`
	ConfigName   string         `json:"config_name,omitempty"`
	LogExcerpt   string         `json:"log_excerpt,omitempty"`
	Valid        bool           `json:"valid"`
	Misc         map[string]any `json:"misc,omitempty"`
}

// KCIDBTest is one test run on a build.
type KCIDBTest struct {
	ID         string         `json:"id"`
	BuildID    string         `json:"build_id"`
	Origin     string         `json:"origin"`
	Path       string         `json:"path"`
	Comment    string         `json:"comment,omitempty"`
	Status     string         `json:"status,omitempty"`
	Number     *KCIDBNumber   `json:"number,omitempty"`
	LogExcerpt string         `json:"log_excerpt,omitempty"`
	StartTime  string         `json:"start_time,omitempty"`
	Duration   float64        `json:"duration,omitempty"`
	Misc       map[string]any `json:"misc,omitempty"`
}

// KCIDBNumber is a test's numeric output.
type KCIDBNumber struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
}

// KCIDBOptions name the submitter and what was tested.
type KCIDBOptions struct {
	// Origin is the CI system's name ([a-z0-9_]+), "autosel_bot" when
	// empty.
	Origin string
	// Patches are the applied patches, in order (for the patchset hash).
	Patches [][]byte
	// PatchNames name them (file names or subjects).
	PatchNames []string
	// MessageID is the Message-ID of the patch mail, if any.
	MessageID string
	// Arch is the build architecture ("x86_64" when empty).
	Arch string
	// Start is when the run started (omitted when zero).
	Start time.Time
}

// kcidbLogMax is the schema's bound on log excerpts.
const kcidbLogMax = 16384

var kcidbPathUnsafe = regexp.MustCompile(`[^.a-zA-Z0-9_-]`)

// KCIDB converts a VM result into a KCIDB I/O document.
func KCIDB(vm *VMReport, opts KCIDBOptions) *KCIDBData {
	origin := opts.Origin
	if origin == "" {
		origin = "autosel_bot"
	}
	arch := opts.Arch
	if arch == "" {
		arch = "x86_64"
	}
	start := ""
	if !opts.Start.IsZero() {
		start = opts.Start.UTC().Format(time.RFC3339)
	}
	commit := ""
	if isHex(vm.BaseCommit) && (len(vm.BaseCommit) == 40 || len(vm.BaseCommit) == 64) {
		commit = vm.BaseCommit
	}
	phash := patchsetHash(opts.Patches)
	base := vm.BaseCommit
	if base == "" {
		base = vm.BaseRef
	}
	key := shortHash(base + "\x00" + phash)
	d := &KCIDBData{Version: KCIDBVersion{KCIDBMajor, KCIDBMinor}, Checkouts: []KCIDBCheckout{}, Builds: []KCIDBBuild{}, Tests: []KCIDBTest{}}
	type kernel struct {
		name     string
		patchset string
		valid    bool
		built    bool
		verdict  func(VMTest) (string, string)
		seconds  float64
	}
	applied := vm.Status != VMApplyFailed && vm.Status != VMRefused
	kernels := []kernel{
		{"baseline", "", true, vm.Status != VMInfraError, func(t VMTest) (string, string) { return t.Baseline, t.BaselineReason }, vm.BaselineVMSeconds},
		{"patched", phash, applied, vm.Build == "ok", func(t VMTest) (string, string) { return t.Patched, t.Reason }, vm.PatchedVMSeconds},
	}
	for _, k := range kernels {
		cid := origin + ":" + key + "-" + k.name
		co := KCIDBCheckout{
			ID: cid, Origin: origin, TreeName: vm.Tree, GitCommitHash: commit, GitCommitName: vm.BaseRef,
			PatchsetHash: k.patchset, StartTime: start, Valid: k.valid,
		}
		if k.patchset != "" {
			co.Comment = strings.Join(opts.PatchNames, "; ")
			co.MessageID = opts.MessageID
			if !k.valid {
				co.LogExcerpt = clip(strings.Join(append(append([]string(nil), vm.Refusals...), vm.BuildErrors...), "\n"))
			}
		} else {
			co.Comment = "baseline " + vm.BaseRef
		}
		d.Checkouts = append(d.Checkouts, co)
		if !k.valid {
			continue
		}
		bid := cid + "-build"
		b := KCIDBBuild{ID: bid, CheckoutID: cid, Origin: origin, StartTime: start, Architecture: arch,
			ConfigName: "tinyconfig+autosel", Valid: k.built}
		if k.patchset != "" {
			b.Duration = vm.BuildSeconds
			if vm.Build != "ok" {
				b.LogExcerpt = clip(strings.Join(vm.BuildErrors, "\n"))
			}
			b.Comment = vm.Summary
		}
		d.Builds = append(d.Builds, b)
		if !k.built {
			continue
		}
		for _, t := range vm.Tests {
			verdict, reason := k.verdict(t)
			path := kcidbTestPath(t)
			kt := KCIDBTest{ID: bid + ":" + path, BuildID: bid, Origin: origin, Path: path, Status: kcidbStatus(verdict),
				Comment: reason, StartTime: start}
			misc := map[string]any{"verdict": verdict}
			if t.Suite != "" {
				misc["suite"] = t.Suite
			}
			if k.patchset != "" {
				if t.Regression {
					misc["regression"] = true
				}
				if t.Fixed {
					misc["fixed"] = true
				}
				if t.Detail != "" {
					misc["detail"] = t.Detail
				}
				kt.LogExcerpt = clip(t.Splat)
			}
			kt.Misc = misc
			d.Tests = append(d.Tests, kt)
			for _, m := range t.Metrics {
				st := m.Baseline
				if k.patchset != "" {
					st = m.Patched
				}
				if st.N == 0 {
					continue
				}
				mp := path + "." + kcidbPathUnsafe.ReplaceAllString(m.Name, "_")
				mt := KCIDBTest{ID: bid + ":" + mp, BuildID: bid, Origin: origin, Path: mp, Status: "DONE",
					Number: &KCIDBNumber{Value: st.Median, Unit: m.Unit}, StartTime: start,
					Misc: map[string]any{"min": st.Min, "max": st.Max, "runs": st.N, "better": m.Better}}
				if k.patchset != "" {
					mt.Misc["change_pct"] = m.ChangePct
					mt.Misc["verdict"] = m.Verdict
				}
				d.Tests = append(d.Tests, mt)
			}
		}
	}
	return d
}

// kcidbTestPath is a test's KCIDB path: "autosel.<test>" for the runner's
// suite, "kselftest.<target>.<program>[.<test point>]" (dots between the
// target's directories) for the kernel's own selftests, as KernelCI names
// them.
func kcidbTestPath(t VMTest) string {
	if t.Suite != "kselftest" {
		return "autosel." + kcidbPathUnsafe.ReplaceAllString(t.Name, "_")
	}
	prog, point, hasPoint := strings.Cut(strings.TrimPrefix(t.Name, "kselftest/"), ": ")
	var parts []string
	for _, p := range strings.Split(prog, "/") {
		parts = append(parts, kcidbPathUnsafe.ReplaceAllString(strings.ReplaceAll(p, ".", "_"), "_"))
	}
	if hasPoint {
		parts = append(parts, kcidbPathUnsafe.ReplaceAllString(strings.ReplaceAll(point, ".", "_"), "_"))
	}
	return "kselftest." + strings.Join(parts, ".")
}

// kcidbStatus maps a suite verdict to a KCIDB test status.
func kcidbStatus(v string) string {
	switch v {
	case "pass":
		return "PASS"
	case "fail", "hang", "crash":
		return "FAIL"
	case "not-run", "boot-failure":
		return "MISS"
	case "skip":
		return "SKIP"
	}
	return "ERROR"
}

// patchsetHash is KCIDB's patchset hash: the sha256 of the newline-ended
// sha256 hex digests of each patch, in order; "" for no patches.
func patchsetHash(patches [][]byte) string {
	if len(patches) == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range patches {
		s := sha256.Sum256(p)
		b.WriteString(hex.EncodeToString(s[:]) + "\n")
	}
	s := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(s[:])
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

func isHex(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return s != ""
}

// clip bounds a log excerpt to the schema's limit (on a rune boundary).
func clip(s string) string {
	if len(s) <= kcidbLogMax {
		return s
	}
	s = s[:kcidbLogMax]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// WriteKCIDB writes the KCIDB I/O document of vm, indented.
func WriteKCIDB(w io.Writer, vm *VMReport, opts KCIDBOptions) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(KCIDB(vm, opts))
}
