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
