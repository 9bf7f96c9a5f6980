package sizes

// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
// a test file may be long
func testLong() {
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
	_ = 1
}
