package typing

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

func TestTypingRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    *fileTyping
	}{
		{"empty", &fileTyping{structs: ctype.Structs{}}},
		{"includes only", &fileTyping{delims: []byte{'<', '"'}, names: []string{"linux/foo.h", "hw.h"}, structs: ctype.Structs{}}},
		{"struct without struct members", &fileTyping{structs: ctype.Structs{"ops": {}}}},
		{"structs", &fileTyping{
			delims: []byte{'"'}, names: []string{"../regs.h"},
			structs: ctype.Structs{
				"e1000_hw":             {"phy": "e1000_phy_info", "adapter": "e1000_adapter"},
				"e1000_phy_info":       {"ops": "e1000_phy_operations"},
				"e1000_phy_operations": {},
			}}},
		{"parsed", deriveTyping("#include <linux/a.h>\n  # include \"b.h\"\nstruct x {\n\tstruct y *y;\n\tunion { struct z z; };\n};\nstruct w { int i; };\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc := encodeTyping(tc.t)
			got, ok := decodeTyping(enc)
			if !ok {
				t.Fatalf("%x does not decode", enc)
			}
			if len(got.names) != len(tc.t.names) || !bytes.Equal(got.delims, tc.t.delims) ||
				(len(got.names) > 0 && !reflect.DeepEqual(got.names, tc.t.names)) || !reflect.DeepEqual(got.structs, tc.t.structs) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, tc.t)
			}
			if again := encodeTyping(got); !bytes.Equal(again, enc) {
				t.Errorf("re-encoding differs:\n%x\n%x", again, enc)
			}
			// Every strict prefix and any trailing byte is refused.
			for n := 0; n < len(enc); n++ {
				if _, ok := decodeTyping(enc[:n]); ok {
					t.Errorf("prefix of %d bytes decodes", n)
				}
			}
			if _, ok := decodeTyping(append(enc[:len(enc):len(enc)], 0)); ok {
				t.Error("trailing byte accepted")
			}
		})
	}
	for _, bad := range [][]byte{
		nil,
		{0},                            // another format
		{typingFormat, 1, 'x', 1, 'a'}, // a bad delimiter
		{typingFormat, 0, 200, 200, 200},
	} {
		if _, ok := decodeTyping(bad); ok {
			t.Errorf("%x decodes", bad)
		}
	}
}

func FuzzDecodeTyping(f *testing.F) {
	f.Add(encodeTyping(&fileTyping{structs: ctype.Structs{}}))
	f.Add(encodeTyping(deriveTyping(typingTree["drv/hw.h"])))
	f.Add(encodeTyping(deriveTyping(typingTree["drv/main.c"])))
	f.Add([]byte{typingFormat, 1, '<', 3, 'a', '.', 'h', 1, 1, 'x', 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		tt, ok := decodeTyping(b)
		if !ok {
			return
		}
		if len(tt.delims) != len(tt.names) {
			t.Fatalf("%d delimiters, %d names", len(tt.delims), len(tt.names))
		}
		// What decodes re-encodes to bytes that decode to the same.
		again, ok := decodeTyping(encodeTyping(tt))
		if !ok {
			t.Fatal("re-encoded typing does not decode")
		}
		if !bytes.Equal(again.delims, tt.delims) || !reflect.DeepEqual(again.structs, tt.structs) ||
			(len(tt.names) > 0 && !reflect.DeepEqual(again.names, tt.names)) {
			t.Fatalf("typing changed on a second round trip:\n%+v\n%+v", tt, again)
		}
	})
}

func TestDeclsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		tags map[string]string
		want map[string]string
	}{
		{"out of range", nil, map[string]string{}},
		{"none", map[string]string{}, map[string]string{}},
		{"some", map[string]string{"hw": "e1000_hw", "adapter": "e1000_adapter"}, nil},
		{"parsed", declTagsIn(NewLines("int f(struct foo *f, struct bar b)\n{\n\tstruct baz *z = NULL;\n\tstruct foo *f;\n}"), 0, 5),
			map[string]string{"f": "foo", "b": "bar", "z": "baz"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == nil {
				want = tc.tags
			}
			enc := encodeDecls(tc.tags)
			got, ok := decodeDecls(enc)
			if !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip: %v (%v), want %v", got, ok, want)
			}
			for n := 0; n < len(enc); n++ {
				if _, ok := decodeDecls(enc[:n]); ok {
					t.Errorf("prefix of %d bytes decodes", n)
				}
			}
			if _, ok := decodeDecls(append(enc[:len(enc):len(enc)], 0)); ok {
				t.Error("trailing byte accepted")
			}
		})
	}
}

func FuzzDecodeDecls(f *testing.F) {
	f.Add(encodeDecls(nil))
	f.Add(encodeDecls(map[string]string{"hw": "e1000_hw", "a": "b"}))
	f.Add([]byte{typingFormat, 200, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		tags, ok := decodeDecls(b)
		if !ok {
			return
		}
		again, ok := decodeDecls(encodeDecls(tags))
		if !ok || !reflect.DeepEqual(again, tags) {
			t.Fatalf("declarations changed on a second round trip: %v, %v", tags, again)
		}
	})
}

// typingTree is a small tree whose driver types a member chain through
// two levels of local headers, with a <...> header beside them.
var typingTree = map[string]string{
	"drv/hw.h": `#include "regs.h"

struct drv_hw {
	struct drv_phy phy;
	struct drv_adapter *adapter;
	int flags;
};
`,
	"drv/regs.h": `struct drv_phy {
	struct drv_phy_ops ops;
};

struct drv_phy_ops {
	int (*acquire)(struct drv_hw *hw);
};
`,
	"drv/main.c": `#include <linux/foo.h>
#include "hw.h"

int drv_do(struct drv_hw *hw)
{
	return hw->phy.ops.acquire(hw);
}

static void drv_local(void)
{
	struct drv_phy *phy = get_phy();
	struct drv_hw hw;

	phy->ops.acquire(&hw);
}
`,
	"include/linux/foo.h": `struct foo {
	struct bar b;
};
`,
	"empty.c": `int nothing;
`,
}

// writeTypingTree writes typingTree into a temporary directory, with
// files overriding some of it.
func writeTypingTree(t *testing.T, files map[string]string) string {
	t.Helper()
	all := map[string]string{}
	for p, s := range typingTree {
		if o, ok := files[p]; ok {
			s = o
		}
		all[p] = s
	}
	return testtree.Dir(t, all)
}

func openIndex(t *testing.T, dir, cache string) *index.Index {
	t.Helper()
	ix, err := index.Open(context.Background(), dir, index.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// computedTyping is what FileStructs and Includes compute from a file's
// text without a store.
func computedTyping(t *testing.T, ix *index.Index, p string) *fileTyping {
	t.Helper()
	src, err := ix.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return deriveTyping(string(src))
}

// includeLists returns includes' answers for file, local and angle.
func includeLists(r *Typer, file string) [2][]string {
	return [2][]string{r.Includes(file, false), r.Includes(file, true)}
}

// TestTypingStored: a prepared tree answers FileStructs and Includes from
// the store for every file, identically to computing them; the struct
// typing of a member call comes out the same with and without a store.
func TestTypingStored(t *testing.T) {
	dir := writeTypingTree(t, nil)
	cache := filepath.Join(t.TempDir(), "cache")
	ix := openIndex(t, dir, cache)
	if r := New(ix, nil); len(ix.Paths()) == 0 || r.storedTypingOK(ix.Paths()[0]) {
		t.Fatal("typing stored before Prepare")
	}
	// What older versions of the two stores left goes when they are
	// written.
	var older []string
	for _, kind := range []string{typingKind, declsKind} {
		f := strings.Replace(ix.SideName(kind), fmt.Sprintf("-v%d.", typingVersion), "-v0.", 1)
		if err := os.WriteFile(f, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		older = append(older, f)
	}
	if err := Prepare(context.Background(), ix, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range older {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("older store %s kept (%v)", f, err)
		}
	}
	// Another Index of the tree reads the store; one with no cache
	// computes everything.
	stored := openIndex(t, dir, cache)
	plain := openIndex(t, dir, "-")
	rs, rp := New(stored, nil), New(plain, nil)
	paths := stored.Paths()
	sort.Strings(paths)
	if want := []string{"drv/hw.h", "drv/main.c", "drv/regs.h", "empty.c", "include/linux/foo.h"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths %q, want %q", paths, want)
	}
	for _, p := range paths {
		st, ok := rs.storedTyping(p)
		if !ok {
			t.Errorf("%s: no stored typing", p)
			continue
		}
		want := computedTyping(t, stored, p)
		if !reflect.DeepEqual(st.structs, want.structs) || !bytes.Equal(st.delims, want.delims) || len(st.names) != len(want.names) {
			t.Errorf("%s: stored %+v, computed %+v", p, st, want)
		}
		if got, want := rs.FileStructs(p), rp.FileStructs(p); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fileStructs stored %v, computed %v", p, got, want)
		}
		if got, want := includeLists(rs, p), includeLists(rp, p); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: includes stored %q, computed %q", p, got, want)
		}
	}
	if _, ok := rs.storedTyping("drv/missing.h"); ok {
		t.Error("a file outside the index has a stored typing")
	}
	// Every function's stored declarations are what baseTag computes.
	nfuncs := 0
	for _, p := range paths {
		src, err := stored.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := NewLines(string(src))
		for _, fn := range stored.File(p).Funcs {
			nfuncs++
			got, ok := rs.storedDecls(fn)
			want := declTagsIn(lines, fn.Start-1, fn.End)
			if !ok || len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Errorf("%s: stored declarations %v (%v), computed %v", fn.Name, got, ok, want)
			}
		}
	}
	if nfuncs != 2 {
		t.Errorf("%d functions, want 2", nfuncs)
	}
	if got, _ := rs.storedDecls(funcNamed(t, stored, "drv_local")); !reflect.DeepEqual(got, map[string]string{"phy": "drv_phy", "hw": "drv_hw"}) {
		t.Errorf("drv_local's stored declarations: %v", got)
	}
	call := func(ix *index.Index) (cscan.Call, *cscan.Func) {
		fn := ix.Full(funcNamed(t, ix, "drv_do"))
		for _, c := range fn.Calls {
			if c.Name == "hw->phy.ops.acquire" {
				return c, fn
			}
		}
		t.Fatalf("drv_do's calls %+v", fn.Calls)
		return cscan.Call{}, nil
	}
	c, fn := call(stored)
	tag, scope := New(stored, nil).MemberCallTag(c, fn)
	c, fn = call(plain)
	ptag, pscope := New(plain, nil).MemberCallTag(c, fn)
	if tag != "drv_phy_ops" || scope != "drv/" || tag != ptag || scope != pscope {
		t.Errorf("MemberCallTag: stored %q %q, computed %q %q, want drv_phy_ops drv/", tag, scope, ptag, pscope)
	}
}

// storedTypingOK reports whether file's typing is read from a store.
func (r *Typer) storedTypingOK(file string) bool {
	_, ok := r.storedTyping(file)
	return ok
}

// TestTypingStoreRead: what FileStructs and Includes answer for a tree
// file comes from the store when there is one of the index's generation
// (a planted record is what they answer), never from a store of another
// generation, and never for a file the patch overlays.
func TestTypingStoreRead(t *testing.T) {
	dir := writeTypingTree(t, nil)
	cache := filepath.Join(t.TempDir(), "cache")
	ix := openIndex(t, dir, cache)
	if err := Prepare(context.Background(), ix, nil); err != nil {
		t.Fatal(err)
	}
	path := ix.SideName(typingKind)
	hw, ok := ix.FileNum("drv/hw.h")
	if !ok {
		t.Fatal("drv/hw.h not indexed")
	}
	planted := &fileTyping{delims: []byte{'"'}, names: []string{"planted.h"}, structs: ctype.Structs{"planted": {"m": "t"}}}
	drvDo, ok := ix.RefOf(funcNamed(t, ix, "drv_do"))
	if !ok {
		t.Fatal("drv_do: no ref")
	}
	plantedDecls := map[string]string{"hw": "planted_hw"}
	plant := func(gen string) {
		t.Helper()
		if err := index.WriteSide(path, gen, ix.NumFiles(), func(i int) [][]byte {
			if i == hw {
				return [][]byte{encodeTyping(planted)}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := index.WriteSide(ix.SideName(declsKind), gen, ix.NumFiles(), func(i int) [][]byte {
			if i == drvDo.File() {
				recs := make([][]byte, drvDo.Pos()+1)
				recs[drvDo.Pos()] = encodeDecls(plantedDecls)
				return recs
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	// baseTag's answer for drv_do's hw.
	hwTag := func(ix *index.Index) string {
		return New(ix, nil).BaseTag("hw", funcNamed(t, ix, "drv_do"))
	}

	t.Run("read", func(t *testing.T) {
		plant(ix.Generation())
		r := New(openIndex(t, dir, cache), nil)
		if got := r.FileStructs("drv/hw.h"); !reflect.DeepEqual(got, planted.structs) {
			t.Errorf("fileStructs = %v, want the planted %v", got, planted.structs)
		}
		if got := r.Includes("drv/hw.h", false); !reflect.DeepEqual(got, []string{"drv/planted.h"}) {
			t.Errorf("includes = %q, want the planted drv/planted.h", got)
		}
		// A file without a record is computed.
		if got := r.FileStructs("drv/regs.h"); got["drv_phy"]["ops"] != "drv_phy_ops" {
			t.Errorf("drv/regs.h without a record: %v", got)
		}
		again := openIndex(t, dir, cache)
		if got := hwTag(again); got != "planted_hw" {
			t.Errorf("baseTag = %q, want the planted planted_hw", got)
		}
		// A function without a record is computed.
		if got := New(again, nil).BaseTag("phy", funcNamed(t, again, "drv_local")); got != "drv_phy" {
			t.Errorf("drv_local without a record: baseTag = %q", got)
		}
	})

	t.Run("overlaid", func(t *testing.T) {
		plant(ix.Generation())
		view := openIndex(t, dir, cache).Overlay(map[string][]byte{"drv/hw.h": []byte("#include \"other.h\"\nstruct drv_hw {\n\tstruct new_phy phy;\n};\n")})
		r := New(view, nil)
		if got, want := r.FileStructs("drv/hw.h"), (ctype.Structs{"drv_hw": {"phy": "new_phy"}}); !reflect.DeepEqual(got, want) {
			t.Errorf("overlaid fileStructs = %v, want %v", got, want)
		}
		if got := r.Includes("drv/hw.h", true); !reflect.DeepEqual(got, []string{"drv/other.h"}) {
			t.Errorf("overlaid includes = %q", got)
		}
		if r.storedTypingOK("drv/hw.h") {
			t.Error("an overlaid file is read from the store")
		}
		// The tree's drv_do, asked about in a view that overlays its
		// file, is typed from the view's text.
		base := openIndex(t, dir, cache)
		src := strings.Replace(typingTree["drv/main.c"], "struct drv_hw *hw", "struct other_hw *hw", 1)
		main := base.Overlay(map[string][]byte{"drv/main.c": []byte(src)})
		r = New(main, nil)
		// What the resolver typed while settling the patch (the view's
		// drv_do, of the same lines) is forgotten.
		r.declTags = map[declKey]map[string]string{}
		if got := r.BaseTag("hw", funcNamed(t, base, "drv_do")); got != "other_hw" {
			t.Errorf("overlaid baseTag = %q, want other_hw", got)
		}
		if got := hwTag(main); got != "other_hw" {
			t.Errorf("overlaid baseTag of the view's drv_do = %q, want other_hw", got)
		}
	})

	t.Run("stale", func(t *testing.T) {
		plant(ix.Generation())
		changed := "struct drv_hw {\n\tstruct changed_phy phy;\n};\n"
		if err := os.WriteFile(filepath.Join(dir, "drv/hw.h"), []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		again := openIndex(t, dir, cache)
		if again.Generation() == ix.Generation() {
			t.Fatal("changing a header kept the generation")
		}
		r := New(again, nil)
		want := ctype.Structs{"drv_hw": {"phy": "changed_phy"}}
		if got := r.FileStructs("drv/hw.h"); !reflect.DeepEqual(got, want) {
			t.Errorf("fileStructs over a stale store = %v, want %v", got, want)
		}
		if got := r.Includes("drv/hw.h", true); got != nil {
			t.Errorf("includes over a stale store = %q, want none", got)
		}
		if got := hwTag(again); got != "drv_hw" {
			t.Errorf("baseTag over a stale store = %q, want drv_hw", got)
		}
		// Prepare writes the store of the new generation.
		if err := Prepare(context.Background(), again, nil); err != nil {
			t.Fatal(err)
		}
		fresh := New(openIndex(t, dir, cache), nil)
		if st, ok := fresh.storedTyping("drv/hw.h"); !ok || !reflect.DeepEqual(st.structs, want) {
			t.Errorf("stored after a second Prepare: %+v (%v), want %v", st, ok, want)
		}
	})
}

// BenchmarkDeriveTyping is the struct typing's share of Prepare on the
// Linux 6.1 tree: every indexed file read and derived, and every function
// decoded for its declarations (in parallel), not written.
func BenchmarkDeriveTyping(b *testing.B) {
	dir := testkernel.Dir(b)
	ix, err := index.Open(context.Background(), dir, index.Options{CacheDir: filepath.Join(filepath.Dir(dir), "index-cache")})
	if err != nil {
		b.Fatal(err)
	}
	var size, dsize int
	for b.Loop() {
		recs, decls, err := deriveAllTyping(context.Background(), ix)
		if err != nil {
			b.Fatal(err)
		}
		size, dsize = 0, 0
		for i, r := range recs {
			size += len(r)
			for _, d := range decls[i] {
				dsize += len(d)
			}
		}
	}
	b.ReportMetric(float64(size)/(1<<20), "typing-MB")
	b.ReportMetric(float64(dsize)/(1<<20), "decls-MB")
}

// funcNamed returns the only definition of name in ix.
func funcNamed(t *testing.T, ix *index.Index, name string) *cscan.Func {
	t.Helper()
	fns := ix.Funcs(name)
	if len(fns) != 1 {
		t.Fatalf("%s: %d definitions", name, len(fns))
	}
	return fns[0]
}
