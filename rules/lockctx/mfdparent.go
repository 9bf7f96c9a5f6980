package lockctx

import (
	"bytes"
	"regexp"
	"slices"

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
// when each of them decides it the same way. A patch that changes such a
// parent changes the summaries of its children's functions, which are
// then computed anew (mfdchildren.go).

// mfdAddCalls register the cells of an mfd_cell table as platform
// devices: the files calling them are the parents.
var mfdAddCalls = []string{"mfd_add_devices", "devm_mfd_add_devices", "mfd_add_hotplug_devices"}

var (
	// driverNameRe finds the name a platform driver binds to
	// (".driver = { .name = "foo", ... }").
	driverNameRe = regexp.MustCompile(`\.driver\s*=\s*\{[^{}]*?\.name\s*=\s*"([\w.-]+)"`)
	// platformAliasRe finds MODULE_ALIAS("platform:foo").
	platformAliasRe = regexp.MustCompile(`MODULE_ALIAS\(\s*"platform:([\w.-]+)"`)
	// idTableRe finds a platform_device_id table, idEntryRe its entries
	// ({ "foo", 0 }, { .name = "foo" }).
	idTableRe = regexp.MustCompile(`struct\s+platform_device_id\s+\w+\s*\[\s*\]\s*=\s*\{(?s:(.*?))\n\}`)
	idEntryRe = regexp.MustCompile(`\{\s*(?:\.name\s*=\s*)?"([\w.-]+)"`)
	// cellTableRe finds an mfd_cell table, cellNameRe the names of its
	// cells (".name = "foo"", MFD_CELL_NAME("foo"), MFD_CELL_OF("foo",
	// ...), OF_MFD_CELL("foo", ...)); the macros name cells anywhere.
	cellTableRe = regexp.MustCompile(`struct\s+mfd_cell\s+\w+\s*(?:\[\s*\w*\s*\])?\s*=\s*\{(?s:(.*?))\n\}`)
	cellNameRe  = regexp.MustCompile(`\.name\s*=\s*"([\w.-]+)"`)
	cellMacroRe = regexp.MustCompile(`(?:MFD_CELL_\w+|OF_MFD_CELL\w*)\(\s*"([\w.-]+)"`)
	// parentUseRe finds a driver reading its parent device.
	parentUseRe = regexp.MustCompile(`dev(?:\.|->)parent\b`)
)

// childDeviceNames returns the platform device names a child driver's
// source binds to (its driver name, platform: aliases, platform_device_id
// entries), nil when it does not read its parent device.
func childDeviceNames(src []byte) []string {
	if !bytes.Contains(src, []byte("platform_driver")) || !parentUseRe.Match(src) {
		return nil
	}
	out := appendMatches(nil, driverNameRe, src)
	out = appendMatches(out, platformAliasRe, src)
	for _, t := range idTableRe.FindAllSubmatch(src, -1) {
		out = appendMatches(out, idEntryRe, t[1])
	}
	return out
}

// cellNames returns the names of the cells an MFD parent's source
// registers.
func cellNames(src []byte) []string {
	var out []string
	for _, t := range cellTableRe.FindAllSubmatch(src, -1) {
		out = appendMatches(out, cellNameRe, t[1])
	}
	return appendMatches(out, cellMacroRe, src)
}

// appendMatches appends to out the first group of each match of re in b
// that out does not hold yet.
func appendMatches(out []string, re *regexp.Regexp, b []byte) []string {
	for _, m := range re.FindAllSubmatch(b, -1) {
		if n := string(m[1]); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// mfdParents returns, by cell name, the files of the view that register
// a device of that name: the files calling mfd_add_devices() and its
// variants, read as the view has them (a parent the patch changes or adds
// with its new cells).
func (r *Resolver) mfdParents() map[string][]string {
	if r.mfdParentsOf != nil {
		return r.mfdParentsOf
	}
	out := map[string][]string{}
	var files []string
	for _, name := range mfdAddCalls {
		for _, cs := range r.ix.Callers(name) {
			if !slices.Contains(files, cs.Func.File) {
				files = append(files, cs.Func.File)
			}
		}
	}
	slices.Sort(files)
	for _, p := range files {
		for _, n := range r.fileNames("lockctx.cellnames:", p, cellNames) {
			out[n] = append(out[n], p)
		}
	}
	r.mfdParentsOf = out
	return out
}

// parentReachesIn reports whether FileTarget primitive c, which file does
// not decide (it creates no object of its own), reaches the target
// through the objects of file's parent device: every MFD driver
// registering one of the device names file binds to decides it so (why
// names the first).
func (r *Resolver) parentReachesIn(ft FileTarget, c cscan.Call, file string) (string, bool) {
	if !ft.Undecided(c, r.fileFacts(ft, file)) {
		return "", false
	}
	var files []string
	parents := r.mfdParents()
	for _, n := range r.childNames(file) {
		for _, p := range parents[n] {
			if p != file && !slices.Contains(files, p) {
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

// childNames returns the device names file binds to as an MFD child
// (childDeviceNames, once per file and view).
func (r *Resolver) childNames(file string) []string {
	return r.fileNames("lockctx.childnames:", file, childDeviceNames)
}

// fileNames returns the names read from file's source in the view, once
// per file and view (key names what read finds).
func (r *Resolver) fileNames(key, file string, read func([]byte) []string) []string {
	names, _ := r.fileMemo(key+file, file, func() any {
		src, err := r.ix.ReadFile(file)
		if err != nil {
			return []string(nil)
		}
		return read(src)
	}).([]string)
	return names
}
