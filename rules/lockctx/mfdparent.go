package lockctx

import (
	"bytes"
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Objects a driver takes from its parent device.
//
// A multi-function device's parent driver (drivers/mfd/) creates the
// regmap of the chip and registers one platform device per function from
// its mfd_cell table (".name = "tps65218-pwrbutton""); the child driver
// bound to that name never creates a regmap, it reads the parent's
// (dev_get_regmap(pdev->dev.parent, NULL), or the parent's driver data).
// Whether its accesses sleep is decided by the parent's file: an I2C or
// SPI regmap without fast_io takes a mutex and waits for the bus. So a
// FileTarget primitive that its own file does not decide is decided by
// the files of the MFD drivers that register the child's device names,
// when each of them decides it the same way.

// mfdScanDir is where the parent drivers of multi-function devices live.
const mfdScanDir = "drivers/mfd/"

var (
	// quotedNameRe finds a device name a file binds to or registers:
	// ".name = "foo"", MFD_CELL_NAME("foo"), MFD_CELL_OF("foo", ...),
	// OF_MFD_CELL("foo", ...), MFD_CELL_BASIC("foo", ...).
	quotedNameRe = regexp.MustCompile(`(?:\.name\s*=\s*|MFD_CELL_\w+\(\s*|OF_MFD_CELL\w*\(\s*)"([\w.-]+)"`)
	// platformAliasRe finds MODULE_ALIAS("platform:foo").
	platformAliasRe = regexp.MustCompile(`MODULE_ALIAS\(\s*"platform:([\w.-]+)"`)
	// idEntryRe finds the entries of a platform_device_id table
	// ({ "foo", 0 }, { .name = "foo" } is quotedNameRe's).
	idEntryRe = regexp.MustCompile(`\{\s*"([\w.-]+)"\s*[,}]`)
)

// childDeviceNames returns the platform device names a child driver's
// source binds to, nil when it does not read its parent device.
func childDeviceNames(src []byte) []string {
	if !bytes.Contains(src, []byte("parent")) || !bytes.Contains(src, []byte("platform_driver")) {
		return nil
	}
	var out []string
	add := func(re *regexp.Regexp) {
		for _, m := range re.FindAllSubmatch(src, -1) {
			if n := string(m[1]); !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	add(quotedNameRe)
	add(platformAliasRe)
	if bytes.Contains(src, []byte("platform_device_id")) {
		add(idEntryRe)
	}
	return out
}

// mfdParents returns, by device name, the files under drivers/mfd/ that
// register a device of that name from an mfd_cell table (once per tree).
func (r *Resolver) mfdParents() map[string][]string {
	return r.ix.Underlying().Memo("lockctx.mfdparents", func() any {
		out := map[string][]string{}
		for _, p := range r.ix.Underlying().Paths() {
			if !strings.HasPrefix(p, mfdScanDir) || !strings.HasSuffix(p, ".c") {
				continue
			}
			src, err := r.ix.Underlying().ReadFile(p)
			if err != nil || !bytes.Contains(src, []byte("mfd_cell")) {
				continue
			}
			for _, m := range quotedNameRe.FindAllSubmatch(src, -1) {
				n := string(m[1])
				if !slices.Contains(out[n], p) {
					out[n] = append(out[n], p)
				}
			}
		}
		return out
	}).(map[string][]string)
}

// parentReachesIn reports whether FileTarget primitive c, which file does
// not decide, reaches the target through the objects of file's parent
// device: every MFD driver registering one of the device names file binds
// to decides it so (why names the first).
func (r *Resolver) parentReachesIn(ft FileTarget, c cscan.Call, file string) (string, bool) {
	if strings.HasPrefix(file, mfdScanDir) {
		return "", false
	}
	names, _ := r.fileMemo("lockctx.childnames:"+file, file, func() any {
		src, err := r.ix.ReadFile(file)
		if err != nil {
			return []string(nil)
		}
		return childDeviceNames(src)
	}).([]string)
	if len(names) == 0 {
		return "", false
	}
	parents := r.mfdParents()
	var files []string
	for _, n := range names {
		for _, p := range parents[n] {
			if !slices.Contains(files, p) {
				files = append(files, p)
			}
		}
	}
	if len(files) == 0 {
		return "", false
	}
	slices.Sort(files)
	first := ""
	for _, p := range files {
		why, ok := ft.ReachesIn(c, r.fileFacts(ft, p))
		if !ok {
			return "", false
		}
		if first == "" {
			first = why + " (in the parent device, which " + p + " registers)"
		}
	}
	return first, true
}
