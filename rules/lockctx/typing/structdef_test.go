package typing

import (
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/index/indextest"
)

// TestStructDefShared: a struct definition found from a tree file is
// shared with the views whose patch changes none of the files read to
// find it, and found again in a view whose patch changes one.
func TestStructDefShared(t *testing.T) {
	tree := map[string]string{
		"drv.h":   "struct hw {\n\tstruct phy_info phy;\n};\n",
		"drv.c":   "#include \"drv.h\"\nvoid f(struct hw *hw)\n{\n\thw->phy.ops.reset(hw);\n}\n",
		"other.c": "void g(void)\n{\n}\n",
	}
	ix := openTree(t, tree)
	treeR := New(ix, nil)
	if ms, def := treeR.StructDef("hw", "drv.c"); def != "drv.h" || ms["phy"] != "phy_info" {
		t.Fatalf("tree: %v in %q", ms, def)
	}
	mac := "struct hw {\n\tstruct mac_info mac;\n};\n"
	tests := []struct {
		name    string
		patch   map[string]string
		def     string
		members map[string]string
		shared  bool
	}{
		{"another file", map[string]string{"other.c": "void g(void)\n{\n\th();\n}\n"}, "drv.h", map[string]string{"phy": "phy_info"}, true},
		{"the header", map[string]string{"drv.h": mac}, "drv.h", map[string]string{"mac": "mac_info"}, false},
		{"the includer", map[string]string{"drv.c": "#include \"drv2.h\"\nvoid f(void)\n{\n}\n", "drv2.h": mac}, "drv2.h", map[string]string{"mac": "mac_info"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			over := map[string][]byte{}
			for p, s := range tt.patch {
				over[p] = []byte(s)
			}
			view := New(ix.Overlay(over), nil)
			ms, def := view.StructDef("hw", "drv.c")
			if def != tt.def || !reflect.DeepEqual(ms, tt.members) {
				t.Errorf("view: %v in %q, want %v in %s", ms, def, tt.members, tt.def)
			}
			if shared := reflect.ValueOf(ms).Pointer() == reflect.ValueOf(treeR.defCache["hw|drv.c"].members).Pointer(); shared != tt.shared {
				t.Errorf("shares the tree's definition: %v, want %v", shared, tt.shared)
			}
		})
	}
	if ms, def := New(ix, nil).StructDef("hw", "drv.c"); def != "drv.h" || ms["phy"] != "phy_info" {
		t.Errorf("tree after the views: %v in %q", ms, def)
	}
}

// openTree indexes a tree of files, with no cache on disk.
func openTree(t *testing.T, files map[string]string) *index.Index {
	t.Helper()
	return indextest.Open(t, files)
}

// TestStructDefUmbrella: a struct is found in a header beside an
// umbrella header the file includes when they are a subsystem's own
// directory, not beside a header of the shared include/linux.
func TestStructDefUmbrella(t *testing.T) {
	ix := openTree(t, map[string]string{
		"include/net/ya/ya.h":      "#include <net/ya/structs.h>\n",
		"include/net/ya/structs.h": "struct ya_sock {\n\tstruct ya_af af;\n};\n",
		"include/linux/wide.h":     "#include <linux/deep.h>\n",
		"include/linux/deep.h":     "struct deep {\n\tstruct deep_ops ops;\n};\n",
		"net/ya/sock.c":            "#include <net/ya/ya.h>\n#include <linux/wide.h>\nvoid f(void)\n{\n}\n",
	})
	tests := []struct {
		tag, def, member string
	}{
		{"ya_sock", "include/net/ya/structs.h", "af"},
		{"deep", "", ""},
	}
	for _, tt := range tests {
		ms, def := New(ix, nil).StructDef(tt.tag, "net/ya/sock.c")
		if def != tt.def || (tt.member != "" && ms[tt.member] == "") {
			t.Errorf("StructDef(%s) = %v in %q, want member %q in %q", tt.tag, ms, def, tt.member, tt.def)
		}
	}
}
