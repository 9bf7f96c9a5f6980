package cscan

// GuardsEnclose reports whether every block outer lies in (a call's
// Guards) also encloses the position inner describes: outer is a prefix
// of inner. A call whose guards enclose another's runs on every path
// that reaches the other through those blocks.
func GuardsEnclose(outer, inner []Guard) bool {
	if len(outer) > len(inner) {
		return false
	}
	for i, g := range outer {
		if g != inner[i] {
			return false
		}
	}
	return true
}
