package typing

import (
	"reflect"
	"testing"
)

func TestParseKbuildFlags(t *testing.T) {
	tests := []struct {
		name, src, dir string
		want           []kbuildFlag
	}{
		{"src parent", "ccflags-y += -I $(srctree)/$(src)/../\n", "drivers/net/wireless/intel/iwlwifi/mvm",
			[]kbuildFlag{{"ccflags-y", []string{"drivers/net/wireless/intel/iwlwifi"}}}},
		{"srctree path and src", "ccflags-y += -I$(srctree)/drivers/net/ethernet/hisilicon/hns3/hns3pf -I$(src)\n", "drivers/net/ethernet/hisilicon/hns3",
			[]kbuildFlag{{"ccflags-y", []string{"drivers/net/ethernet/hisilicon/hns3/hns3pf", "drivers/net/ethernet/hisilicon/hns3"}}}},
		{"subdir and continuation", "subdir-ccflags-y += \\\n\t-I$(src)/include # shared\n", "drivers/gpu/drm/foo",
			[]kbuildFlag{{"subdir-ccflags-y", []string{"drivers/gpu/drm/foo/include"}}}},
		{"config and per-object", "ccflags-$(CONFIG_FOO_DEBUG) := -I$(obj)/dbg\nCFLAGS_trace.o := -I$(src)\n", "drivers/foo",
			[]kbuildFlag{{"ccflags-$(CONFIG_FOO_DEBUG)", []string{"drivers/foo/dbg"}}, {"CFLAGS_trace.o", []string{"drivers/foo"}}}},
		{"other variables, absolute and outside the tree left out", "ccflags-y += -I$(FULL_AMD_PATH)/include -I/usr/include -I$(srctree)/../x\n", "drivers/gpu/drm/amd",
			nil},
		{"config made built-in", "ccflags-$(CONFIG_VIDEO_GO7007_LOADER:m=y) += -I$(srctree)/drivers/media/dvb-frontends\n", "drivers/media/usb/go7007",
			[]kbuildFlag{{"ccflags-$(CONFIG_VIDEO_GO7007_LOADER:m=y)", []string{"drivers/media/dvb-frontends"}}}},
		{"a comment is not a flag", "# ccflags-y += -I$(src)/old\nobj-y += foo.o\n", "drivers/foo", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseKbuildFlags(tt.src, tt.dir); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseKbuildFlags() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestKbuildIncludeDirs: a file's own directory's ccflags-y and its own
// CFLAGS_<object>.o apply, another object's do not; subdir-ccflags-y of
// a directory above applies (first), its ccflags-y does not unless that
// Makefile builds the object (hns3's hns3pf/hclge_main.o); a quoted
// include not beside the file is found through them.
func TestKbuildIncludeDirs(t *testing.T) {
	tree := map[string]string{
		"drivers/foo/Makefile":             "ccflags-y += -I$(src)/top-only\nsubdir-ccflags-y += -I $(srctree)/drivers/foo/common\n",
		"drivers/foo/bar/Makefile":         "ccflags-y += -I $(srctree)/$(src)/../\nCFLAGS_bar.o := -I$(src)/barinc\nCFLAGS_baz.o := -I$(src)/bazinc\n",
		"drivers/foo/foo_hw.h":             "struct foo_hw { struct foo_ops *ops; };\n",
		"drivers/foo/common/shared.h":      "struct shared { int x; };\n",
		"drivers/foo/bar/bar.c":            "#include \"foo_hw.h\"\n#include \"shared.h\"\n#include \"missing.h\"\nvoid f(void)\n{\n}\n",
		"drivers/hns3/Makefile":            "ccflags-y += -I$(src)\nobj-y += hclge.o\nhclge-objs = hns3pf/hclge_main.o\n",
		"drivers/hns3/hnae3.h":             "struct hnae3_handle { int x; };\n",
		"drivers/hns3/hns3pf/hnae3.h":      "struct other { int y; };\n",
		"drivers/hns3/hns3pf/main.c":       "#include \"hnae3.h\"\nvoid g(void)\n{\n}\n",
		"drivers/hns3/hns3pf/hclge_main.c": "#include \"hns3_enet.h\"\nvoid h(void)\n{\n}\n",
		"drivers/hns3/hns3_enet.h":         "struct hns3_nic_priv { int z; };\n",
	}
	ty := New(openTree(t, tree), nil)
	want := []string{"drivers/foo/common", "drivers/foo", "drivers/foo/bar/barinc"}
	if got := ty.KbuildIncludeDirs("drivers/foo/bar/bar.c"); !reflect.DeepEqual(got, want) {
		t.Errorf("KbuildIncludeDirs() = %q, want %q", got, want)
	}
	wantInc := []string{"drivers/foo/foo_hw.h", "drivers/foo/common/shared.h", "drivers/foo/bar/missing.h"}
	if got := ty.Includes("drivers/foo/bar/bar.c", false); !reflect.DeepEqual(got, wantInc) {
		t.Errorf("Includes() = %q, want %q", got, wantInc)
	}
	if got, want := ty.Includes("drivers/hns3/hns3pf/hclge_main.c", false), []string{"drivers/hns3/hns3_enet.h"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Includes(hclge_main.c) = %q, want %q", got, want)
	}
	if got, want := ty.Includes("drivers/hns3/hns3pf/main.c", false), []string{"drivers/hns3/hns3pf/hnae3.h"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Includes(main.c) = %q, want %q (beside the file first)", got, want)
	}
}
