package lockctx

import "testing"

// TestAsksFor: an object asks for a context in its own initializer or by
// a store to a copy at run time; another object's initializer and a
// comment (blanked before) do not count, and without an object the
// whole file does.
func TestAsksFor(t *testing.T) {
	only := []string{".fast_io = true"}
	src := "static const struct regmap_config mmio_config = {\n\t.reg_bits = 32,\n\t.fast_io = true,\n};\n\n" +
		"static const struct regmap_config i2c_config = {\n\t.reg_bits = 16,\n\t.reg_read = foo_read,\n};\n"
	probe := "int probe(void)\n{\n\tstruct regmap_config cfg = i2c_config;\n\n\tcfg.fast_io = true;\n\treturn 0;\n}\n"
	for _, tc := range []struct {
		name, text, obj string
		want            bool
	}{
		{"own initializer", src, "mmio_config", true},
		{"another object's initializer", src, "i2c_config", false},
		{"a copy set at run time", src + probe, "i2c_config", true},
		{"no object: the file", src, "", true},
		{"a longer name is another object", src, "config", false},
		{"not in the file", "static const struct regmap_config c = {\n\t.reg_bits = 8,\n};\n", "c", false},
	} {
		if got := asksFor(tc.text, Flatten([]byte(tc.text)), tc.obj, only); got != tc.want {
			t.Errorf("%s: asksFor(%q) = %v, want %v", tc.name, tc.obj, got, tc.want)
		}
	}
}
