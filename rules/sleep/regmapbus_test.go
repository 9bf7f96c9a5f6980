package sleep

import (
	"strconv"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

func testRegmapRules(t *testing.T) *regmapBusRules {
	t.Helper()
	rb := &regmapBusRules{Inits: []string{"devm_regmap_init_i2c", "devm_regmap_init_spi"},
		Spinlock: []string{".fast_io = true", ".use_raw_spinlock = true"}, Why: "sleeping buses"}
	if err := rb.compile(); err != nil {
		t.Fatal(err)
	}
	return rb
}

// TestRegmapBusUses: which config and initialiser pairs ask for a
// spinlock on a sleeping bus.
func TestRegmapBusUses(t *testing.T) {
	const probe = "\nint probe(struct i2c_client *c)\n{\n\treturn PTR_ERR_OR_ZERO(devm_regmap_init_i2c(c, &cfg));\n}\n"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"fast io", "static const struct regmap_config cfg = {\n\t.reg_bits = 8,\n\t.fast_io = true,\n};\n" + probe, ".fast_io = true@3"},
		{"raw spinlock", "static const struct regmap_config cfg = {\n\t.use_raw_spinlock\t=\ttrue,\n};\n" + probe, ".use_raw_spinlock\t=\ttrue@2"},
		{"none", "static const struct regmap_config cfg = {\n\t.reg_bits = 8,\n};\n" + probe, ""},
		{"comment", "static const struct regmap_config cfg = {\n\t/* .fast_io = true, */\n\t.reg_bits = 8, // .fast_io = true\n};\n" + probe, ""},
		{"multi-line comment", "static const struct regmap_config cfg = {\n\t/*\n\t.fast_io = true,\n\t */\n\t.reg_bits = 8,\n};\n" + probe, ""},
		{"comment after the field", "static const struct regmap_config cfg = {\n\t.fast_io = true, /* MMIO-fast */\n};\n" + probe, ".fast_io = true@2"},
		{"if 0", "static const struct regmap_config cfg = {\n#if 0\n\t.fast_io = true,\n#endif\n\t.reg_bits = 8,\n};\n" + probe, ""},
		{"own locking", "static const struct regmap_config cfg = {\n\t.fast_io = true,\n\t.disable_locking = true,\n};\n" + probe, ""},
		{"lock callbacks", "static const struct regmap_config cfg = {\n\t.fast_io = true,\n\t.lock = drv_lock,\n\t.unlock = drv_unlock,\n};\n" + probe, ""},
		{"nested initialiser", "static const struct regmap_config cfg = {\n\t.wr_table = &(const struct regmap_access_table){ .n_yes_ranges = 1 },\n\t.fast_io = true,\n};\n" + probe, ".fast_io = true@3"},
		{"config elsewhere", probe, ""},
		{"mmio", "static const struct regmap_config cfg = {\n\t.fast_io = true,\n};\nint p(void) { return devm_regmap_init_mmio(d, b, &cfg); }\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, u := range testRegmapRules(t).uses(tc.src) {
				got = append(got, u.field+"@"+strconv.Itoa(u.fieldLine))
			}
			if g := strings.Join(got, ","); g != tc.want {
				t.Errorf("got %q, want %q", g, tc.want)
			}
		})
	}
}

// TestRegmapBusHostile: unbalanced text after many initialiser names is
// read a bounded stretch per name (maxScan), and yields nothing.
func TestRegmapBusHostile(t *testing.T) {
	src := strings.Repeat("devm_regmap_init_i2c((((", 20000) + strings.Repeat("x", 100000)
	if u := testRegmapRules(t).uses(src); len(u) != 0 {
		t.Errorf("uses %v", u)
	}
	if args, ok := cscan.SplitArgs(strings.Repeat("(", maxScan*2)+")", maxScan); ok {
		t.Errorf("an unclosed call read past maxScan: %d args", len(args))
	}
}

// FuzzRegmapBusUses: any file text is read without a panic, and every
// use found names a config with a line inside the text.
func FuzzRegmapBusUses(f *testing.F) {
	f.Add("static const struct regmap_config cfg = {\n\t.fast_io = true,\n};\nint p(void) { return devm_regmap_init_i2c(c, &cfg); }\n")
	f.Add("struct regmap_config c = { /* */ .fast_io = 1 }; devm_regmap_init_spi(s, &c)")
	f.Add("devm_regmap_init_i2c(")
	f.Fuzz(func(t *testing.T, src string) {
		rb := &regmapBusRules{Inits: []string{"devm_regmap_init_i2c", "devm_regmap_init_spi"},
			Spinlock: []string{".fast_io = true", ".fast_io = 1"}, Why: "sleeping buses"}
		if err := rb.compile(); err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(src, "\n") + 1
		for _, u := range rb.uses(src) {
			if u.config == "" || u.fieldLine < 1 || u.fieldLine > lines || u.initLine < 1 || u.initLine > lines {
				t.Errorf("use %+v outside the %d lines", u, lines)
			}
		}
	})
}
