package main

import "testing"

func TestDropMessages(t *testing.T) {
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"irq", "\tirq = platform_get_irq(pdev, 0);\n\tif (irq < 0) {\n\t\tdev_err(&pdev->dev, \"no irq\\n\");\n\t\treturn irq;\n\t}\n\tx();\n",
			"\tirq = platform_get_irq(pdev, 0);\n\tif (irq < 0)\n\t\treturn irq;\n\tx();\n", 1},
		{"ioremap, dev_err on two lines", "\t\tb->base = devm_ioremap_resource(dev,\n\t\t\t\t\t\tres);\n\t\tif (IS_ERR(b->base)) {\n\t\t\tdev_err(dev,\n\t\t\t\t\"map\\n\");\n\t\t\treturn PTR_ERR(b->base);\n\t\t}\n",
			"\t\tb->base = devm_ioremap_resource(dev,\n\t\t\t\t\t\tres);\n\t\tif (IS_ERR(b->base))\n\t\t\treturn PTR_ERR(b->base);\n", 1},
		{"block does more than print", "\tirq = platform_get_irq(pdev, 0);\n\tif (irq < 0) {\n\t\tdev_err(dev, \"x\\n\");\n\t\tcleanup();\n\t\treturn irq;\n\t}\n",
			"\tirq = platform_get_irq(pdev, 0);\n\tif (irq < 0) {\n\t\tdev_err(dev, \"x\\n\");\n\t\tcleanup();\n\t\treturn irq;\n\t}\n", 0},
		{"returns another value", "\tirq = platform_get_irq(pdev, 0);\n\tif (irq < 0) {\n\t\tdev_err(dev, \"x\\n\");\n\t\treturn -ENXIO;\n\t}\n",
			"\tirq = platform_get_irq(pdev, 0);\n\tif (irq < 0) {\n\t\tdev_err(dev, \"x\\n\");\n\t\treturn -ENXIO;\n\t}\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := dropMessages(tt.in)
			if got != tt.want || n != tt.n {
				t.Errorf("got %d removed:\n%s\nwant %d:\n%s", n, got, tt.n, tt.want)
			}
		})
	}
}
