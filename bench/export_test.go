package bench

// FillPattern and ValidPattern expose the two-sided benchmarks'
// validation to the tests.
func FillPattern(b []byte, k int) []byte { msgFill(b, k); return b }

// ValidPattern: see FillPattern.
func ValidPattern(b []byte, k int) bool { return msgCheck(b, k) }
