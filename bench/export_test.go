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

// RoundTrip packs src's layout as a sender would and unpacks the message
// into a zeroed buffer as the receiver would; it returns the message and
// the buffer.
func RoundTrip(l *Layout, src []byte) (msg, dst []byte) {
	d := Setup{Layout: l}.ddt(len(src))
	msg = append([]byte(nil), d.packed(src)...)
	dst = make([]byte, len(src))
	copy(d.incoming(dst), msg)
	d.unpacked(dst)
	return msg, dst
}
