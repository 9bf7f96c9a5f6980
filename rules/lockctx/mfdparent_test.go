package lockctx

import (
	"fmt"
	"testing"
)

func TestChildDeviceNames(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"driver name", "static struct platform_driver d = { .driver = { .name = \"foo-rtc\", }, };\nx = dev_get_regmap(pdev->dev.parent, NULL);\n",
			[]string{"foo-rtc"}},
		{"alias and id table", "MODULE_ALIAS(\"platform:foo-gpio\");\nstatic const struct platform_device_id ids[] = {\n\t{ \"foo-gpio\", 0 },\n\t{ \"bar-gpio\", 1 },\n\t{ }\n};\nstruct platform_driver d;\nx = dev_get_drvdata(pdev->dev.parent);\n",
			[]string{"foo-gpio", "bar-gpio"}},
		{"does not read its parent", "static struct platform_driver d = { .driver = { .name = \"foo\", }, };\n", nil},
		{"other structs' names are not the driver's", "static struct irq_chip chip = { .name = \"qix\", };\nstatic struct platform_driver d = { .probe = p, .driver = { .name = \"zed-gpio\", }, };\nx = gc->parent; y = pdev->dev.parent;\n",
			[]string{"zed-gpio"}},
		{"not a platform driver", "static struct i2c_driver d = { .driver = { .name = \"foo\", }, };\nx = client->dev.parent;\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := childDeviceNames([]byte(tc.src)); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCellNames(t *testing.T) {
	src := `static const struct regmap_config cfg = { .name = "qix-map", };
static const struct mfd_cell qix_cells[] = {
	{ .name = "qix-pwrbutton", },
	{
		.name = "qix-rtc",
		.of_compatible = "qix,rtc",
	},
};
static const struct mfd_cell more[] = {
	MFD_CELL_NAME("qix-gpio"),
	OF_MFD_CELL("qix-adc", NULL, NULL, 0, 0, "qix,adc"),
};
static struct i2c_driver qix_driver = { .driver = { .name = "qix", }, };
`
	want := []string{"qix-pwrbutton", "qix-rtc", "qix-gpio", "qix-adc"}
	if got := cellNames([]byte(src)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
