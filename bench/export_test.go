package bench

// FillPattern and ValidPattern expose the two-sided benchmarks'
// validation to the tests.
func FillPattern(b []byte, k int) []byte { msgFill(b, k); return b }

// ValidPattern: see FillPattern.
func ValidPattern(b []byte, k int) bool { return msgCheck(b, k) }

// SetBufferTrace has f see the send buffer of every two-sided message
// (from the PEs' goroutines) until the returned function is called.
func SetBufferTrace(f func(size int, buf []byte)) (restore func()) {
	old := bufferTrace
	bufferTrace = f
	return func() { bufferTrace = old }
}

// SetWinTrace has f see each size's origin buffer of the one-sided
// benchmarks and whether a registration covers it.
func SetWinTrace(f func(kind WinKind, buf []byte, pinned bool)) (restore func()) {
	old := winTrace
	winTrace = f
	return func() { winTrace = old }
}
