package stable

import (
	"fmt"
	"regexp"
	"strconv"
)

// Version is a kernel major.minor version such as 5.4.
type Version struct {
	Major, Minor int
}

// String formats the version as "5.4" ("" for the zero Version).
func (v Version) String() string {
	if v == (Version{}) {
		return ""
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// Less orders versions.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	return v.Minor < w.Minor
}

var versionRE = regexp.MustCompile(`(?:^|[^0-9.])v?([1-9][0-9]?)\.([0-9]{1,2})(?:\.([0-9]+|x|y))?`)

// ParseVersion extracts the first kernel version ("v6.1.192", "5.4",
// "linux-5.10.y") from s.
func ParseVersion(s string) (Version, bool) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return Version{}, false
	}
	maj, _ := strconv.Atoi(m[1])
	min, _ := strconv.Atoi(m[2])
	return Version{maj, min}, true
}

// TagRange is the set of trees a "Cc: stable" annotation selects.
type TagRange struct {
	// From is the oldest version selected; zero means all trees.
	From Version
	// Only selects exactly From (e.g. "# 5.4 only").
	Only bool
	// Until, when set, is the newest version selected ("# 4.19.x-5.4.x").
	Until Version
}

// All reports whether every tree is selected.
func (r TagRange) All() bool { return r.From == (Version{}) }

// Contains reports whether a tree of version v is selected. A tree with
// an unknown (zero) version is selected only by an unannotated tag.
func (r TagRange) Contains(v Version) bool {
	if r.All() {
		return true
	}
	if v == (Version{}) {
		return false
	}
	if r.Only {
		return v == r.From
	}
	if r.Until != (Version{}) && r.Until.Less(v) {
		return false
	}
	return !v.Less(r.From)
}

// String formats the range as the stable bot does: "all", "5.4+", "5.4".
func (r TagRange) String() string {
	switch {
	case r.All():
		return "all"
	case r.Only:
		return r.From.String()
	case r.Until != (Version{}):
		return r.From.String() + "-" + r.Until.String()
	}
	return r.From.String() + "+"
}

// union widens r to cover o as well (the oldest From wins; "only" ranges
// of different versions become a "from the oldest" range).
func (r TagRange) union(o TagRange) TagRange {
	if r.All() || o.All() {
		return TagRange{}
	}
	if r == o {
		return r
	}
	if !r.Only && !o.Only && r.Until == (Version{}) && o.Until == (Version{}) && r.From == o.From {
		return r
	}
	from := r.From
	if o.From.Less(from) {
		from = o.From
	}
	return TagRange{From: from}
}
