package sizes

// fine is a short function in a short file.
func fine() int {
	return 2
}
